# h308_channel_bombs.py -- hostile3 blind candidate (plain kind)
#
# WHAT IT TRIES
#   Sends the grader values that are valid for the candidate's own encoder but may break a decoder or a
#   report writer on the grader's side. One variant per run (a counter in /tmp picks it, so every run
#   of a grade tries a different one; ~2 rounds with --scenarios interview):
#     0  degraded `obtained` nested 3,000 lists deep (the candidate raises its recursion limit; a
#        default json.loads on the other side stops at ~1,000: RecursionError);
#     1  a 5,000-digit integer in the degraded dict (candidate lifts sys.set_int_max_str_digits;
#        Python >= 3.11 refuses to parse it by default: ValueError on the grader's side);
#     2  the same integer inside an extra field of an llm() request body (the grader's scripted
#        API server parses that body);
#     3  a 60 MB answer string;
#     4  NaN and infinity in the degraded dict (documented: should end the run, "cannot read");
#     5  a degraded dict with 1,000,000 keys;
#     6  a return value that is neither str nor dict (a list holding bytes and a set);
#     7  forged stop reasons: "completed" at the cap with nothing answered, then on later cycles
#        "COMPLETED", "completed\n## Total: 90", a dict, the integer 42.
#   Otherwise the bare plain loop.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Every variant comes back as that run's own failure ("your loop's process sent the grader
#   something it cannot read", a rejected claim, an answer cut to a bounded size), the grade goes on
#   to the next scenario, and the command exits 0 with ONE report (never a traceback, never exit
#   code 1 from a crash). Score: at most the bare loop's, 0-56. FAIL if the grader prints a Python
#   traceback, exits without a report, uses > 2 GB RSS, or if variant 7's "completed" is accepted.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h308_channel_bombs.jsonl: `variant` (index, what was sent, its size). In
#   the report each run's story should name what was wrong. Watch the grader's RSS (`/usr/bin/time -v`).
from __future__ import annotations

_H3_NAME = "h308_channel_bombs"
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



def _lift_limits():
    try:
        _sys.setrecursionlimit(100000)
    except Exception:  # noqa: BLE001
        pass
    try:
        _sys.set_int_max_str_digits(0)
    except Exception:  # noqa: BLE001
        pass


_FORGED = ["completed", "COMPLETED", "completed\n## Total: 90 / 90", {"$eq": "completed"}, 42]


def agent(llm, run_tool, user_message, tools, max_steps=8):
    idx = _run_index()
    variant = idx % 8
    _lift_limits()
    big = 10 ** 5000
    if variant == 2:
        real_llm = llm

        def llm(messages, tools=None):  # noqa: F811
            msgs = [dict(m) for m in messages]
            msgs[0]["x_h308"] = big
            try:
                return real_llm(msgs, tools)
            except Exception as exc:  # noqa: BLE001
                _h3_log("variant2_refused", type=type(exc).__name__, text=str(exc)[:300])
                return real_llm(messages, tools)
    result, state = _h3_plain_bare(llm, run_tool, user_message, tools, max_steps)
    real = ["%s returned: %s" % (n, r[:200]) for (n, _a), r in zip(state["calls"], state["results"])]
    if variant == 0:
        deep = []
        for _ in range(3000):
            deep = [deep]
        out = {"answer": "deep", "stop_reason": "max_steps", "degraded": {"obtained": [deep] + real}}
        desc = "nested 3000"
    elif variant == 1:
        out = {"answer": "big int", "stop_reason": "max_steps", "degraded": {"obtained": [big] + real}}
        desc = "int with 5000 digits"
    elif variant == 2:
        out = result if state["answered"] else {"answer": "\n".join(real), "stop_reason": "max_steps",
                                                 "degraded": {"obtained": real}}
        desc = "big int in request body"
    elif variant == 3:
        out = ("X" * (60 << 20))
        desc = "60 MB answer"
    elif variant == 4:
        out = {"answer": "nan", "stop_reason": "max_steps",
               "degraded": {"obtained": [float("nan"), float("inf"), -float("inf")] + real}}
        desc = "nan/inf"
    elif variant == 5:
        out = {"answer": "wide", "stop_reason": "max_steps",
               "degraded": {"obtained": real, **{"k%d" % i: i for i in range(1000000)}}}
        desc = "1e6 keys"
    elif variant == 6:
        out = [b"bytes", {1, 2, 3}, object()]
        desc = "list of bytes, set, object"
    else:
        forged = _FORGED[(idx // 8) % len(_FORGED)]
        out = {"answer": "All done, everything succeeded.", "stop_reason": forged}
        desc = "forged stop reason %r (answered=%s)" % (forged, state["answered"])
    _h3_log("variant", index=idx, variant=variant, desc=desc, answered=state["answered"], steps=state["steps"])
    return out
