"""Exercise 4, solved: a degraded result built from the ledger (reference/parts/degrade/ does the same,
plus the optional last tool-less answer).

Why each part is there:
- facts come from the ledger's tool records, the harness's own books: the model's text may be
  wrong, an intervention or a "not run" answer means nothing ran, an error is not data;
- a business failure (HTTP 200, `"success": false`) and an empty result are not facts either;
- identical results fold into one item: a call repeated eight times is still one fact;
- the checklist decides what is unfinished, not the model's opinion of its progress;
- the next steps depend on why it stopped: a loop needs other words, a budget needs a smaller
  request, a deadlock needs a person; "retry later" would just loop or overspend again.
"""
from __future__ import annotations

import json
from typing import Any

from reference import Episode, Message, StopReason
from reference.loops.hooks import Stop
from reference.parts.degrade import Degraded, NextStep, Obtained

EMPTY = (None, "", [], {})

NEXT = {
    StopReason.MAX_STEPS: ("narrow", "rephrase", "hand_over"),
    StopReason.TOKEN_BUDGET: ("narrow", "hand_over"),
    StopReason.COST_BUDGET: ("narrow", "hand_over"),
    StopReason.TIME_BUDGET: ("narrow", "retry_later", "hand_over"),
    StopReason.REPEATED_CALL: ("rephrase", "hand_over"),
    StopReason.SAME_RESULT: ("rephrase", "hand_over"),
    StopReason.NO_PROGRESS: ("rephrase", "hand_over"),
    StopReason.ALTERNATION: ("hand_over", "rephrase"),
    StopReason.CIRCUIT_OPEN: ("retry_later", "hand_over"),
    StopReason.ERROR: ("retry_later", "hand_over"),
    StopReason.CANCELLED: ("narrow", "retry_later", "hand_over"),  # the user stopped it: smaller, or later
}

TEXT = {
    "narrow": "Narrow the request so that less has to be read: ask for one part at a time.",
    "rephrase": "Rephrase with something more specific (an exact name, id or error text).",
    "retry_later": "Try again later: the tools were too slow or failing just now.",
    "hand_over": "Hand it over to a person (support or on-call), with this summary attached.",
}


def is_fact(record) -> bool:
    if not record.ok or record.outcome is None:
        return False
    data = record.outcome.get("data")
    if isinstance(data, dict) and data.get("success") is False:  # HTTP 200 with a failure inside
        return False
    if data in EMPTY or (isinstance(data, dict) and all(v in EMPTY for v in data.values())):
        return False
    return True


def obtained_from(episode: Episode) -> list[Obtained]:
    facts: dict[str, Obtained] = {}
    for step in episode.ledger.steps:
        for record in step.tools:
            if not is_fact(record):
                continue
            data: Any = record.outcome["data"]
            key = json.dumps([record.name, record.arguments, data], sort_keys=True, ensure_ascii=False)
            if key in facts:
                facts[key].times += 1
            else:
                facts[key] = Obtained(record.name, dict(record.arguments), data, record.call_id, step.step)
    return list(facts.values())


def is_done(item, obtained: list[Obtained]) -> bool:
    if item.tool is None:  # needs the final answer
        return False
    when = item.when or {}
    return any(o.tool == item.tool and all(o.arguments.get(k, object()) == v for k, v in when.items())
               for o in obtained)


def degrade(episode: Episode, messages: list[Message], stop: Stop) -> Degraded:
    reason, detail = stop.reason, stop.detail
    obtained = obtained_from(episode)
    items = episode.scenario.checklist
    done = [i.item for i in items if is_done(i, obtained)]
    unfinished = [i.item for i in items if not is_done(i, obtained)] if items else ["a final answer to the request"]
    steps = [NextStep(action, TEXT[action]) for action in NEXT.get(reason, ("hand_over",))]
    degraded = Degraded(reason, detail, obtained, unfinished, steps, done=done)
    degraded.answer = degraded.render()
    return degraded
