"""Exercise 7: fix the design, not the fuse, for the metric-trend task.

The task
    `metric-trend` loops because of its design: every tool is offered (a card renderer beside the tools
    that answer), the period is left to the model (30d, then 14d), and nothing records what is done, so
    the model cannot see that it has finished. Build the design that makes the loop impossible:

        route(user, tools) -> list[str]    the intent's tools only: record and trend need record_metric and
                                           get_metric_trend; the card is rendered by code, not offered.
                                           (the intent is known when the request, lower-cased, contains
                                           "record" and "trend", inside longer words too). No known intent:
                                           never every tool; at most as many as the intent has (two), those
                                           with a name part (split at "_") that is a word of the request (a
                                           run of letters, lower-cased); all of them when there are no more
                                           than two
        settle_period(user) -> str | None  "the last two weeks" -> "14d", "7-day" -> "7d", "a month" ->
                                           "30d", in code (None when the user gave no period)
        MetricState                        a pydantic model: extra="forbid", strict, schema_version 1,
                                           period, metric_recorded, trend_loaded (+ what they produced);
                                           `complete` when both items are done
        DesignedExecutor(episode)          plugs into the guarded loop (`offered`, `execute`, `after_step`)
        validate_plan(plan) -> list[str]   the plan's tools, or ValueError naming what is wrong

    Given: `reference.loops.hooks.PlainExecutor` (offers every tool, runs a call once),
    `reference.core.toolresult.read_body` (a result's JSON object), `to_json`, `ToolCall`, `ToolMessage`.

Steps
    1. `route` and `settle_period`.
    2. `MetricState`: a typo, a string "yes" for a bool, or another schema version must be refused,
       when the state is made and when it is updated.
    3. `DesignedExecutor`: `offered` gives the routed tools whose items are still open, and nothing once the
       state is complete (the next request is then the answer); `execute` refuses a tool outside the route,
       answers a step already done from the state without running it again, replaces the model's period
       with the settled one, and ticks an item only from a validated result (`ok` true, data an object, not
       `success: false`). The model proposes, code decides, the runtime keeps the record.
    4. `validate_plan`: {"steps": [{"tool": ...}, ...]} (a dict or its JSON text, no other field); every
       tool allowed (record_metric, get_metric_trend), both required, the trend after the record.

Check your work with `loopkit check ex07`; ask for a hint with `loopkit hint ex07`.
"""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict  # noqa: F401  (you will need them)

from reference.core.messages import ToolCall, ToolMessage, ToolSpec  # noqa: F401
from reference.core.toolresult import read_body, to_json  # noqa: F401
from reference.loops.hooks import PlainExecutor  # noqa: F401


def route(user: str, tools: list[str]) -> list[str]:
    raise NotImplementedError("Exercise 7, step 1: the intent's tools")


def settle_period(user: str) -> Optional[str]:
    raise NotImplementedError("Exercise 7, step 1: the period, settled in code")


class MetricState:
    def __init__(self, **fields: Any):
        raise NotImplementedError("Exercise 7, step 2: a typed state (pydantic, extra='forbid', a schema version)")


class DesignedExecutor:
    def __init__(self, episode: Any, inner: Any = None):
        raise NotImplementedError("Exercise 7, step 3: the router, the checklist and the state, in one executor")

    def offered(self, episode: Any) -> list[ToolSpec]:
        raise NotImplementedError

    def execute(self, episode: Any, call: ToolCall) -> ToolMessage:
        raise NotImplementedError

    def after_step(self, episode: Any) -> None:
        raise NotImplementedError


def validate_plan(plan: Any) -> list[str]:
    raise NotImplementedError("Exercise 7, step 4: a plan checked against the template")
