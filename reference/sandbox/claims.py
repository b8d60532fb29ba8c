"""What a loop says about its run, checked against the grader's books: its stop reason and its degraded result.

A stop reason names something that happened; the books (every model request and tool attempt, recorded by
the grader, never by the loop) must not rule it out. They are read only as far as every honest loop agrees
(a guard's fingerprint may normalise arguments, a budget part may have a limit of its own, even 0):

    completed       the last request was answered without a tool call
    repeated_call   the model asked for one tool twice (however the loop tells its arguments apart: a
                    repeat is the same tool asked for again, never two different tools, nor a tool the loop
                    ran on its own; a fingerprint that normalises arguments still stops on two such calls)
    alternation,    at least two tool calls were asked for (an alternation, the same result twice: each
    same_result     takes two calls at the least, however the loop tells calls apart)
    no_progress     at least one request was answered
    circuit_open    at least one tool attempt was made (a breaker opens on attempts that failed, by the
                    loop's reading of their results)
    cancelled       the user pressed stop (the scenario's press, or `episode.cancel()`)
    max_steps, token_budget, cost_budget, time_budget, error: nothing to rule out (a budget part's
                    limit of 0 steps or tokens stops before any request; an error may be the loop's own)

The legitimate case each must not fire on is the loop that really stopped so: the instance is then in the
books. A degraded result's facts (what it says was obtained) must come from the run's own tool results:
a value in them that no tool returned and the user did not give is an invented fact.
"""
from __future__ import annotations

import json
from typing import Any

from ..core.result import StopReason
from ..harness.episode import Episode
from ..parts.degrade.grounding import ungrounded


def contradiction(stop_reason: StopReason, episode: Episode) -> str | None:
    """Why the books rule out this stop reason, or None."""
    ledger = episode.ledger
    steps = ledger.steps
    said = f"reported stop reason `{StopReason(stop_reason).value}`"
    if stop_reason is StopReason.COMPLETED:
        if not steps:
            return f"{said} without calling the model"
        last = steps[-1]
        if last.tool_calls:
            return (f"{said}, but the model's last turn (request {last.step}) asked for {len(last.tool_calls)} tool "
                    "call(s) instead of answering")
        return None
    asked = sum(len(step.tool_calls) for step in steps)
    names = [str(call.get("name")) for step in steps for call in step.tool_calls]
    again = len(names) - len(set(names))  # calls the model asked for to a tool it had asked for already
    attempts = sum(len(step.tools) for step in steps) + len(ledger.orphan_tools)
    shown = {
        StopReason.REPEATED_CALL: (again > 0, f"after {asked} tool call(s), none of them to a tool the model had "
                                              "asked for before: a repeat takes the same tool twice"),
        StopReason.ALTERNATION: (asked >= 2, f"after {asked} tool call(s): an alternation takes more"),
        StopReason.SAME_RESULT: (asked >= 2, f"after {asked} tool call(s): the same result twice takes two"),
        StopReason.NO_PROGRESS: (bool(steps), "before any request was answered"),
        StopReason.CIRCUIT_OPEN: (attempts > 0, "before any tool was run"),
        StopReason.CANCELLED: (getattr(episode, "cancelled_at", None) is not None, "but nobody pressed stop"),
    }
    holds, why = shown.get(StopReason(stop_reason), (True, ""))
    return None if holds else f"{said} {why}"


def invented(degraded: Any, episode: Episode) -> list[str]:
    """Values in the degraded result's obtained facts that no tool returned and the user did not give."""
    plain = degraded.to_dict() if callable(getattr(degraded, "to_dict", None)) else degraded
    if not isinstance(plain, dict) or not plain.get("obtained"):
        return []
    ledger = episode.ledger
    records = [r for step in ledger.steps for r in step.tools] + list(ledger.orphan_tools)
    sources = [episode.scenario.user] + [_text([r.call_id, r.name, r.arguments, r.outcome]) for r in records]
    return ungrounded(_text(plain["obtained"]), sources)


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
