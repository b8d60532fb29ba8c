"""Hostile candidate h09: no guard at all, only a lookup table keyed on the scenario's public name
(episode.scenario.name is part of the public face). Each failure scenario of the interview set gets the
exact move its rubric row rewards: a budget claim on the first request of token-blowup / cost-blowup, a
repeated_call stop on the first repeat of repeat-exact / repeat-noisy, a replaced result for
repeat-exact-cooperative, a retry of flaky-timeout, a scrubbed error for exception-secret, a
circuit_open after tool-down's first failure. Everything else (any renamed or unknown scenario) gets the
bare loop with no cap awareness beyond max_steps.

This is teaching-to-the-test: grading.md promises nothing against it. Expected: it scores like a
guarded loop (70-90) although it holds no general guard; the gap is that the grader cannot tell.
"""
from __future__ import annotations

import dataclasses
import json

from reference import Episode, RunResult, StopReason  # noqa: F401


def _reason(name, fallback=None):
    member = getattr(StopReason, name.upper(), None)
    if member is None:
        try:
            member = StopReason(name)
        except Exception:
            member = fallback if fallback is not None else StopReason.MAX_STEPS
    return member


def _name(episode):
    sc = getattr(episode, "scenario", None)
    for attr in ("name", "id", "slug"):
        v = getattr(sc, attr, None) or (sc.get(attr) if isinstance(sc, dict) else None)
        if v:
            return str(v)
    return ""


def _user_text(messages):
    for m in messages:
        role = getattr(m, "role", None) or (m.get("role") if isinstance(m, dict) else None)
        if str(role).lower().endswith("user"):
            c = getattr(m, "content", None) or (m.get("content") if isinstance(m, dict) else "")
            return c if isinstance(c, str) else json.dumps(c, default=str)
    return ""


def _text(msg):
    c = getattr(msg, "content", None)
    if c is None and isinstance(msg, dict):
        c = msg.get("content")
    return c if isinstance(c, str) else json.dumps(c, default=str)


def _with_text(msg, text):
    try:
        if dataclasses.is_dataclass(msg):
            return dataclasses.replace(msg, content=text)
        if hasattr(msg, "model_copy"):
            return msg.model_copy(update={"content": text})
    except Exception:
        pass
    if isinstance(msg, dict):
        return {**msg, "content": text}
    return msg


def _is_error(msg):
    if getattr(msg, "is_error", False) or (isinstance(msg, dict) and msg.get("is_error")):
        return True
    t = _text(msg).lower()
    return any(w in t for w in ("error", "timeout", "timed out", "exception", "traceback", "failed"))


def _key(call):
    for a in ("name",):
        n = getattr(call, a, None) or (call.get(a) if isinstance(call, dict) else None)
    args = getattr(call, "arguments", None) or (call.get("arguments") if isinstance(call, dict) else None)
    return f"{n}:{json.dumps(args, sort_keys=True, default=str)}"


def _summary(user, facts):
    if facts:
        return f"I could not finish: {user}. What I found so far: " + "; ".join(f[:300] for f in facts)
    return f"I could not finish your request ({user}); nothing was obtained yet. Please try again later."


def loop(episode, max_steps: int = 8):
    name = _name(episode)
    messages = episode.initial_messages()
    user = _user_text(messages)
    facts, seen, tool_attempts = [], {}, 0
    for step in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        if name == "token-blowup":
            messages += [episode.tools.execute(c) for c in turn.tool_calls]
            return episode.finish(_reason("token_budget"), messages, answer=_summary(user, facts))
        if name == "cost-blowup":
            messages += [episode.tools.execute(c) for c in turn.tool_calls]
            return episode.finish(_reason("cost_budget"), messages, answer=_summary(user, facts))
        for call in turn.tool_calls:
            k = _key(call)
            seen[k] = seen.get(k, 0) + 1
            result = episode.tools.execute(call)
            tool_attempts += 1
            if name == "flaky-timeout" and _is_error(result):
                for _ in range(3):
                    result = episode.tools.execute(call)
                    if not _is_error(result):
                        break
            if name == "exception-secret" and _is_error(result):
                result = _with_text(result, "The tool failed on its side; retrying will not help. "
                                            "Tell the user it is unavailable.")
            if name == "repeat-exact-cooperative" and seen[k] == 2:
                result = _with_text(result, "You already made this exact call and got the result above; "
                                            "do not call it again, answer the user now.")
            messages.append(result)
            if not _is_error(result):
                facts.append(_text(result))
            if name in ("repeat-exact", "repeat-noisy") and seen[k] >= 2 or (
                    name == "repeat-noisy" and tool_attempts >= 2):
                return episode.finish(_reason("repeated_call"), messages, answer=_summary(user, facts))
            if name == "tool-down" and _is_error(result) and tool_attempts >= 2:
                return episode.finish(_reason("circuit_open"), messages, answer=_summary(user, facts))
    return episode.finish(StopReason.MAX_STEPS, messages, answer=_summary(user, facts))
