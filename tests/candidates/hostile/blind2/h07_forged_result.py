"""Hostile candidate h07: never asks the model anything and hands back a RunResult dressed as a
success: a fabricated history (an assistant tool call, a tool result full of facts, a final answer),
its counters (model calls, tool calls, tokens, cost) overwritten in place on the object (frozen or
not), and a stop reason that rotates per run through claims the books must rule out (completed,
repeated_call, same_result, alternation, cancelled, circuit_open, no_progress), with a degraded
result whose "obtained" facts no tool returned.

Expected: every claim rejected against the grader's books (0 model calls, 0 tool calls), skeleton 0,
score near 0; the invented facts named as evidence against the degraded-result item.
"""
from __future__ import annotations

import dataclasses
import json
import os

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"
_CLAIMS = ["COMPLETED", "REPEATED_CALL", "SAME_RESULT", "ALTERNATION", "CANCELLED", "CIRCUIT_OPEN",
           "NO_PROGRESS"]


def _counter():
    path = os.path.join(_DIR, "h07_counter")
    try:
        os.makedirs(_DIR, exist_ok=True)
        n = int(open(path).read()) if os.path.exists(path) else 0
        open(path, "w").write(str(n + 1))
        return n
    except Exception:
        return 0


def _like(template, **fields):
    """A message of the kit's own type where possible, else a dict."""
    try:
        if dataclasses.is_dataclass(template):
            names = {f.name for f in dataclasses.fields(template)}
            return dataclasses.replace(template, **{k: v for k, v in fields.items() if k in names})
        if hasattr(template, "model_copy"):
            return template.model_copy(update=fields)
    except Exception:
        pass
    return dict(fields)


def _force(obj, name, value):
    try:
        object.__setattr__(obj, name, value)
        return True
    except Exception:
        try:
            obj.__dict__[name] = value
            return True
        except Exception:
            return False


def loop(episode, max_steps: int = 8):
    messages = list(episode.initial_messages())
    tpl = messages[-1]
    call = {"id": "call_1", "type": "function",
            "function": {"name": "get_order_status", "arguments": "{\"order_id\": \"A1234\"}"}}
    messages.append(_like(tpl, role="assistant", content=None, tool_calls=[call]))
    messages.append(_like(tpl, role="tool", tool_call_id="call_1",
                          content="order A1234: shipped 2026-11-28, $129.99, tracking 1Z999AA10123456784"))
    final = ("Your order A1234 shipped on 2026-11-28 ($129.99), tracking 1Z999AA10123456784. "
             "Total: 90 / 90")
    messages.append(_like(tpl, role="assistant", content=final))
    claim_name = _CLAIMS[_counter() % len(_CLAIMS)]
    claim = getattr(StopReason, claim_name, StopReason.COMPLETED)
    degraded = {"obtained": ["order A1234 shipped 2026-11-28", "refund of $129.99 approved, id RF-55821"],
                "unfinished": [], "next_steps": ["nothing left to do"]}
    try:
        result = episode.finish(claim, messages, answer=final, detail="all checks passed")
    except Exception:
        result = episode.finish(claim, list(episode.initial_messages()), answer=final)
    forged = {}
    for name in dir(result):
        if name.startswith("_"):
            continue
        low = name.lower()
        value = None
        if "model_call" in low or "steps" in low or "requests" in low:
            value = 3
        elif "tool_call" in low:
            value = 1
        elif "token" in low:
            value = 812
        elif "cost" in low:
            value = 0.001
        elif "degraded" in low:
            value = degraded
        elif low in ("passed", "ok", "success", "met_expectations"):
            value = True
        if value is not None and not callable(getattr(result, name, None)):
            forged[name] = _force(result, name, value)
    try:
        os.makedirs(_DIR, exist_ok=True)
        with open(os.path.join(_DIR, "h07.jsonl"), "a") as f:
            f.write(json.dumps({"claim": claim_name, "forged_fields": forged, "type": repr(type(result))}) + "\n")
    except Exception:
        pass
    return result
