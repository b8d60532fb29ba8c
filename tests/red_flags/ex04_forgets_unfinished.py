"""Red flag: what was found is reported, but not what is still missing (no unfinished items)."""
from reference import StopReason
from reference.parts.degrade import Degraded, NextStep, Obtained


def degrade(episode, messages, stop):
    reason, detail = stop.reason, stop.detail
    obtained, seen = [], set()
    for step in episode.ledger.steps:
        for r in step.tools:
            data = r.outcome.get("data") if r.ok and r.outcome else None
            if data in (None, [], {}, "") or (isinstance(data, dict) and (data.get("success") is False
                                                                         or all(not v for v in data.values()))):
                continue
            key = repr((r.name, sorted(r.arguments.items()), data))
            if key not in seen:
                seen.add(key)
                obtained.append(Obtained(r.name, r.arguments, data, r.call_id, step.step))
    first = {"token_budget": "narrow", "cost_budget": "narrow", "time_budget": "narrow", "max_steps": "narrow",
             "alternation": "hand_over"}.get(reason.value, "rephrase")
    steps = [NextStep(first, "Try a narrower or more specific request.")]
    if first != "hand_over":
        steps.append(NextStep("hand_over", "Ask a person."))
    d = Degraded(reason, detail, obtained, [], steps)
    d.answer = d.render()
    return d
