"""The facts of a stopped run, from the episode's ledger: every tool attempt with its structured
outcome. Not from the model's text (it may be wrong), not from the history's interventions or "not
run" answers (nothing ran), not from errors, not from a business failure, and not from a success
whose data is empty (that goes to `tried`: the user sees what was looked for and found nothing)."""
from __future__ import annotations

import json
from typing import Any, Sequence

from ...core.result import ToolRecord
from ...harness.episode import Episode
from ...sim.scenario.schema import ChecklistItem
from ..executor.taxonomy import business_failure
from ..guards.results import is_empty as empty_payload
from .result import Obtained, Tried


def records(episode: Episode) -> list[tuple[int, ToolRecord]]:
    """Every tool attempt of the run, with the step that asked for it (0 = before any model call)."""
    out = [(0, r) for r in episode.ledger.orphan_tools]
    out += [(s.step, r) for s in episode.ledger.steps for r in s.tools]
    return out


def is_business_failure(data: Any) -> bool:
    """HTTP 200 whose body says it failed: the same rule lesson 5's executor applies (`errors.business_failure`)."""
    return business_failure(data) is not None


def is_empty(data: Any) -> bool:
    """No information, at any depth ({"results": []}, {"results": [{"items": []}]}): the guard's own rule."""
    return empty_payload(data)


def outcome_of(record: ToolRecord) -> str:
    """"ok" for a usable fact, otherwise why the attempt brought nothing."""
    if record.outcome is None:
        return f"raised: {record.exception or 'an exception'}"
    if not record.ok:
        return f"error: {record.outcome.get('error_type') or 'unknown'}"
    data = record.outcome.get("data")
    if is_business_failure(data):
        return f"business failure: {data.get('error_code') or 'rejected'}"
    if is_empty(data):
        return "no results"
    return "ok"


def _key(*values: Any) -> str:
    return json.dumps(values, sort_keys=True, ensure_ascii=False, default=str)


def gather(episode: Episode) -> tuple[list[Obtained], list[Tried]]:
    """The facts (successful calls with data) and the fruitless attempts, repeats folded together."""
    obtained: dict[str, Obtained] = {}
    tried: dict[str, Tried] = {}
    for step, record in records(episode):
        outcome = outcome_of(record)
        if outcome == "ok":
            data = record.outcome["data"]
            key = _key(record.name, record.arguments, data)
            if key in obtained:
                obtained[key].times += 1
            else:
                obtained[key] = Obtained(record.name, dict(record.arguments), data, record.call_id, step)
        else:
            key = _key(record.name, record.arguments, outcome)
            if key in tried:
                tried[key].times += 1
            else:
                tried[key] = Tried(record.name, dict(record.arguments), outcome)
    # an attempt that failed and later succeeded (a retry) is not "tried without result"
    got = {_key(o.tool, o.arguments) for o in obtained.values()}
    return list(obtained.values()), [t for t in tried.values() if _key(t.tool, t.arguments) not in got]


def covers(item: ChecklistItem, obtained: Sequence[Obtained]) -> bool:
    """A checklist item with a tool is covered by a successful call of that tool whose arguments
    include its `when`. An item without a tool needs the final answer, which a degraded run lacks."""
    if item.tool is None:
        return False
    when = item.when or {}
    return any(o.tool == item.tool and all(k in o.arguments and o.arguments[k] == v for k, v in when.items())
               for o in obtained)


def checklist(episode: Episode, obtained: Sequence[Obtained]) -> tuple[list[str], list[str]]:
    """(done, unfinished) item texts. A task without a checklist still lacks its answer."""
    items = episode.scenario.checklist
    if not items:
        return [], ["a final answer to the request"]
    done = [i.item for i in items if covers(i, obtained)]
    return done, [i.item for i in items if not covers(i, obtained)]
