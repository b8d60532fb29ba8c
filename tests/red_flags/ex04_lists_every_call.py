"""Red flag: every tool call in the history is listed as obtained, errors and interventions included."""
import json

from reference import StopReason, ToolMessage
from reference.parts.degrade import Degraded, NextStep, Obtained


def degrade(episode, messages, stop):
    reason, detail = stop.reason, stop.detail
    calls = {c.id: (c, i) for i, m in enumerate(messages) if m.role == "assistant" for c in m.tool_calls}
    obtained, seen = [], set()
    for m in messages:
        if isinstance(m, ToolMessage) and m.call_id in calls:
            call, index = calls[m.call_id]
            body = json.loads(m.content)
            data = body.get("data", body)  # whatever came back
            key = repr((call.name, call.arguments, data))
            if key not in seen:
                seen.add(key)
                obtained.append(Obtained(call.name, json.loads(call.arguments), data, call.id, index))
    unfinished = [i.item for i in episode.scenario.checklist
                  if not (i.tool and any(o.tool == i.tool
                                         and all(o.arguments.get(k) == v for k, v in (i.when or {}).items())
                                         for o in obtained))]
    first = {"token_budget": "narrow", "cost_budget": "narrow", "time_budget": "narrow", "max_steps": "narrow",
             "alternation": "hand_over"}.get(reason.value, "rephrase")
    steps = [NextStep(first, "Try a narrower or more specific request.")]
    if first != "hand_over":
        steps.append(NextStep("hand_over", "Ask a person."))
    d = Degraded(reason, detail, obtained, unfinished, steps)
    d.answer = d.render()
    return d
