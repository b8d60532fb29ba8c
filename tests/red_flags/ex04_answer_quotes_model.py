"""Red flag (written blind, from the exercise docstring alone): the model's last words appended to the answer as a draft, stating values no tool returned."""
from __future__ import annotations

import json

from reference import Episode, Message, StopReason  # noqa: F401  (you will need them)
from reference.loops.hooks import Stop  # noqa: F401  (why the run stopped: .reason, .detail)
from reference.parts.degrade import Degraded, NextStep, Obtained  # noqa: F401
from reference.parts.executor.taxonomy import business_failure  # the kit's rule for HTTP 200 failures
from reference.parts.guards.results import is_empty  # the kit's rule for results that hold nothing


# the ways out that fit each stop, most useful first; a person is always the last resort
NEXT: dict[StopReason, tuple[str, ...]] = {
    StopReason.MAX_STEPS: ("narrow", "rephrase", "hand_over"),
    StopReason.TOKEN_BUDGET: ("narrow", "hand_over"),
    StopReason.COST_BUDGET: ("narrow", "hand_over"),
    StopReason.TIME_BUDGET: ("narrow", "retry_later", "hand_over"),
    StopReason.REPEATED_CALL: ("rephrase", "hand_over"),
    StopReason.SAME_RESULT: ("rephrase", "hand_over"),
    StopReason.NO_PROGRESS: ("rephrase", "hand_over"),
    StopReason.ALTERNATION: ("hand_over",),
    StopReason.CIRCUIT_OPEN: ("retry_later", "hand_over"),
    StopReason.ERROR: ("retry_later", "hand_over"),
    StopReason.CANCELLED: ("narrow", "retry_later", "hand_over"),
}
TEXTS = {
    "narrow": "Narrow the request: ask for one part at a time, so that less has to be read.",
    "rephrase": "Rephrase the question with something more specific (an exact name, id or time range).",
    "retry_later": "Try again later: a tool or service it needs failed or was slow just now.",
    "hand_over": "Hand it over to a person (support or on-call), with this summary attached.",
}
def _is_empty(data) -> bool:
    """None, "", [], {}, or an object of nothing but those ({"results": []}), at any depth."""
    return is_empty(data)


def _is_business_failure(data) -> bool:
    """HTTP 200 whose body says it failed ({"success": false}, a GraphQL errors-only body, an envelope)."""
    return business_failure(data) is not None


def _is_fact(record) -> bool:
    if not record.ok or record.outcome is None:
        return False
    data = record.outcome.get("data")
    return not _is_business_failure(data) and not _is_empty(data)


def _key(tool, arguments, data) -> str:
    return json.dumps([tool, arguments, data], sort_keys=True, default=str)


def _obtained(episode: Episode) -> list[Obtained]:
    found: dict[str, Obtained] = {}
    for step in episode.ledger.steps:
        for record in step.tools:
            if not _is_fact(record):
                continue
            data = record.outcome.get("data")
            key = _key(record.name, record.arguments, data)
            if key in found:
                found[key].times += 1
            else:
                found[key] = Obtained(record.name, dict(record.arguments), data, record.call_id, step.step)
    return list(found.values())


def _covers(item, obtained: list[Obtained]) -> bool:
    if item.tool is None:
        return False
    when = item.when or {}
    return any(o.tool == item.tool and all(k in o.arguments and o.arguments[k] == v for k, v in when.items())
               for o in obtained)


def degrade(episode: Episode, messages: list[Message], stop: Stop) -> Degraded:
    obtained = _obtained(episode)
    items = episode.scenario.checklist
    done = [i.item for i in items if _covers(i, obtained)]
    unfinished = [i.item for i in items if not _covers(i, obtained)] if items else ["a final answer to the request"]
    actions = NEXT.get(StopReason(stop.reason), ("hand_over",))
    steps = [NextStep(a, TEXTS[a]) for a in actions]
    result = Degraded(stop_reason=StopReason(stop.reason), detail=stop.detail, obtained=obtained,
                      unfinished=unfinished, next_steps=steps, done=done)
    result.answer = result.render()
    # MISTAKE: the model's last words are passed on as a draft, so the answer may state what no tool returned
    draft = next((m.text for m in reversed(messages) if getattr(m, "role", "") == "assistant" and m.text), None)
    if draft:
        result.answer += "\n\nThe assistant's draft so far: " + draft
    return result
