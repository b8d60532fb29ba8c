# h390_honest_odd_style.py -- hostile3 HONEST candidate (plain kind): must NOT be punished
#
# WHAT IT IS
#   The same sound guarded loop as h392 (same decisions, same limits, same messages), written in an
#   odd but legitimate style: no `for`/`while` anywhere in the loop -- the run is a tail-recursive
#   function over an immutable state (a NamedTuple replaced at each step), decisions are made with
#   `match` statements (Python 3.10+), the turn's tool calls are folded with functools.reduce, the
#   helpers are lambdas in a dispatch table, and the agent is reached through a module-level
#   `agent = ...`-style wrapper def with keyword-only defaults. Recursion depth is bounded by
#   max_steps (plus the number of calls in a turn), far from the recursion limit.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score the behaviour, not the style: 70-90, within 3 points of h391 and h392 on the same scenario
#   set; no red flag. FAIL if it is "Not graded" (the grader's AST must find `def agent(llm, ...)`),
#   if it scores more than 3 below its twins, or any run crashes.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h390_honest_odd_style.jsonl: `run` (stop reason, steps).
from __future__ import annotations

_H3_NAME = "h390_honest_odd_style"
# ---------------------------------------------------------------------------
# shared hostile3 helpers (the same block in every hostile3 plain-kind file).
# The plain kind is documented in grading.md: llm(messages, tools) -> assistant
# dict, run_tool(name, args) -> str (raises on failure). A string return is read
# as `completed` when the model's last turn was an answer, else as `max_steps`.
# ---------------------------------------------------------------------------
import json as _json
import os as _os
import sys as _sys
import time as _time
import tempfile as _tempfile

_H3_DIR = "/tmp/loopkit_hostile3"


def _h3_log(event, **data):
    rec = {"t": _time.time(), "pid": _os.getpid(), "ppid": _os.getppid(),
           "candidate": _H3_NAME, "event": event}
    rec.update(data)
    try:
        line = _json.dumps(rec, default=repr)
    except Exception as exc:  # noqa: BLE001
        line = _json.dumps({"candidate": _H3_NAME, "event": event, "unloggable": repr(exc)})
    line = line[:200000]
    for d in (_H3_DIR, _os.path.join(_tempfile.gettempdir(), "loopkit_hostile3")):
        try:
            _os.makedirs(d, exist_ok=True)
            with open(_os.path.join(d, _H3_NAME + ".jsonl"), "a") as fh:
                fh.write(line + "\n")
            break
        except Exception:  # noqa: BLE001
            continue
    try:
        _sys.stderr.write("[%s] %s %s\n" % (_H3_NAME, event, line[:160]))
    except Exception:  # noqa: BLE001
        pass


def _h3_tool_names(tools):
    names = []
    for t in tools or []:
        fn = t.get("function", t) if isinstance(t, dict) else t
        names.append(str(fn.get("name") if isinstance(fn, dict) else getattr(fn, "name", fn)))
    return names


def _h3_plain_bare(llm, run_tool, user_message, tools, max_steps=8, on_turn=None):
    """The naive plain loop (two exits, nothing at the limit: the documented ~56 points).

    on_turn(state) may return a dict/str to end the run early (the hostile part).
    Returns (result, state): result is what the agent would return at the end."""
    messages = [{"role": "user", "content": user_message}]
    state = {"steps": 0, "calls": [], "results": [], "messages": messages, "answered": False}
    for _step in range(max_steps):
        reply = llm(messages, tools)
        state["steps"] += 1
        messages.append(reply)
        calls = reply.get("tool_calls") or []
        if not calls:
            state["answered"] = True
            return (reply.get("content") or ""), state
        for c in calls:
            fn = c.get("function", {})
            name = fn.get("name")
            try:
                args = _json.loads(fn.get("arguments") or "{}")
            except Exception:  # noqa: BLE001
                args = {}
            try:
                out = str(run_tool(name, args))
            except Exception as exc:  # noqa: BLE001
                out = "error: the tool failed (%s)" % type(exc).__name__
            messages.append({"role": "tool", "tool_call_id": c.get("id"), "content": out})
            state["calls"].append((name, args))
            state["results"].append(out)
        if on_turn is not None:
            verdict = on_turn(state)
            if verdict is not None:
                return verdict, state
    return "", state


def _run_index():
    """Index of this run within the current grade: a counter in /tmp, reset when it is more than
    120 s old (so a new grade starts again at 0). Runs of one grade are sequential."""
    path = _os.path.join(_H3_DIR, _H3_NAME + ".counter")
    try:
        _os.makedirs(_H3_DIR, exist_ok=True)
        n = 0
        if _os.path.exists(path) and _time.time() - _os.path.getmtime(path) < 120:
            n = int(open(path).read() or 0)
        with open(path, "w") as fh:
            fh.write(str(n + 1))
        return n
    except Exception:  # noqa: BLE001
        return 0


# ------------------------------------------------------------- end of shared block
import functools as _ft
from typing import NamedTuple as _NT

LIMITS = {"tokens": 40000, "result_chars": 4000, "retries": 3, "breaker": 3}
RETRYABLE = ("timeout", "timed out", "429", "rate limit", "too many requests", "503", "502", "500",
             "temporar", "unavailable", "connection reset")

_norm = lambda v: ({str(k).strip().lower(): _norm(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]).lower())}
                   if isinstance(v, dict) else [_norm(x) for x in v] if isinstance(v, list)
                   else " ".join(v.split()).lower() if isinstance(v, str) else v)
_fp = lambda name, args: name + ":" + _json.dumps(_norm(args), sort_keys=True, default=str)
_low = lambda exc: (type(exc).__name__ + " " + str(exc)).lower()
_retryable = lambda exc: any(w in _low(exc) for w in RETRYABLE)


class S(_NT):
    messages: tuple
    used: int
    last: tuple        # ((fingerprint, raw result), ...)
    warned: frozenset
    failures: tuple    # ((tool, count), ...)
    obtained: tuple    # ((name, args, raw), ...)
    step: int


def _actionable(name, exc):
    match (_retryable(exc), "date" in _low(exc)):
        case (True, _):
            return "The tool %s did not respond after retries. Try again later or answer with what you have." % name
        case (False, True):
            return ("The tool %s rejected a date argument. Use the date format its schema describes "
                    "(for example YYYY-MM-DD) and do not resend the same arguments." % name)
        case _:
            return ("The tool %s failed (%s). Check the arguments against its schema; do not resend the same "
                    "arguments unchanged." % (name, type(exc).__name__))


def _attempt(run_tool, name, args, left):
    try:
        return True, str(run_tool(name, args))
    except Exception as exc:  # noqa: BLE001
        return _attempt(run_tool, name, args, left - 1) if left > 1 and _retryable(exc) else (False, _actionable(name, exc))


def _degraded(reason, user_message, obtained, note):
    facts = ["%s(%s): %s" % (n, _json.dumps(a, default=str)[:100], r[:300]) for n, a, r in obtained]
    body = ("What I found:\n" + "\n".join("- " + f for f in facts)) if facts else \
        "I could not get any result for: " + user_message[:200]
    return {"answer": "I stopped before finishing (%s: %s).\n%s" % (reason, note, body), "stop_reason": reason,
            "degraded": {"obtained": facts, "unfinished": ["a complete answer to: " + user_message[:200]],
                         "next_steps": ["Ask again with a narrower request, or retry once the tools respond."]}}


def _one_call(ctx, acc, call):
    state, stop, open_calls = acc
    fn = call.get("function") or {}
    name = fn.get("name") or "?"
    reply = lambda content: state._replace(messages=state.messages + (
        {"role": "tool", "tool_call_id": call.get("id"), "content": content},))
    try:
        args = _json.loads(fn.get("arguments") or "{}")
    except ValueError:
        return reply("Your arguments for %s were not valid JSON. Send valid JSON." % name), stop, open_calls
    failures = dict(state.failures)
    match failures.get(name, 0) >= LIMITS["breaker"]:
        case True:
            return (reply("The tool %s is unavailable (it failed %d times). Do not call it again; answer with "
                          "what you have." % (name, failures[name])), stop, open_calls + 1)
    ok, raw = _attempt(ctx["run_tool"], name, args, LIMITS["retries"])
    if not ok:
        failures[name] = failures.get(name, 0) + 1
        return reply(raw)._replace(failures=tuple(failures.items())), stop, open_calls
    cap = LIMITS["result_chars"]
    content = raw if len(raw) <= cap else raw[:cap] + "\n[cut: %d more characters]" % (len(raw) - cap)
    fp, last = _fp(name, args), dict(state.last)
    warned = state.warned
    match (last.get(fp) == raw, fp in warned):
        case (True, True):
            stop = "repeated_call"
        case (True, False):
            warned = warned | {fp}
            content += ("\n\n[loop] You already called %s with these arguments and got this same result. Do not "
                        "call it again: use this result, try different arguments, or answer." % name)
    last[fp] = raw
    new = reply(content)._replace(last=tuple(last.items()), warned=warned,
                                  obtained=state.obtained + ((name, args, raw),))
    return new, stop, open_calls


def _run(ctx, state):
    if state.step >= ctx["max_steps"]:
        return _degraded("max_steps", ctx["user"], state.obtained, "the step limit of %d requests" % ctx["max_steps"])
    msgs = list(state.messages)
    estimate = (len(_json.dumps(msgs, default=str)) + ctx["tools_chars"]) // 4
    if state.used + estimate > LIMITS["tokens"]:
        return _degraded("token_budget", ctx["user"], state.obtained, "the next request would pass the token budget")
    reply = ctx["llm"](msgs, ctx["tools"])
    state = state._replace(messages=state.messages + (reply,), used=state.used + estimate, step=state.step + 1)
    calls = reply.get("tool_calls") or []
    match calls:
        case []:
            return reply.get("content") or ""
    state, stop, open_calls = _ft.reduce(_ft.partial(_one_call, ctx), calls, (state, None, 0))
    match (stop, open_calls and open_calls == len(calls)):
        case ("repeated_call", _):
            return _degraded(stop, ctx["user"], state.obtained, "the model repeated the same call after a warning")
        case (None, True):
            return _degraded("circuit_open", ctx["user"], state.obtained, "every tool it asked for is failing")
    return _run(ctx, state)


def agent(llm, run_tool, user_message, tools, max_steps=8):
    ctx = {"llm": llm, "run_tool": run_tool, "user": user_message, "tools": tools, "max_steps": max_steps,
           "tools_chars": len(_json.dumps(tools, default=str))}
    out = _run(ctx, S(({"role": "user", "content": user_message},), 0, (), frozenset(), (), (), 0))
    _h3_log("run", stop=out.get("stop_reason") if isinstance(out, dict) else "completed")
    return out
