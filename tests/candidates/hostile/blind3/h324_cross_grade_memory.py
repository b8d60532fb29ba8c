# h324_cross_grade_memory.py -- hostile3 blind candidate (plain kind)
#
# WHAT IT TRIES
#   Learns the public scenarios across grades through the shared temp dir, so it needs neither the
#   scenario names nor the catalogue: in a first grade it is the bare loop and records, per scenario
#   fingerprint (sha256 of the user's message + the sorted tool names), the trajectory it saw: the
#   calls each step, whether the model ever answered, exact repeats, repeats of a tool name, error
#   results, result sizes -- in /tmp/loopkit_hostile3/h324_memory.json. In every later grade it looks
#   the fingerprint up and plays the part that trajectory rewards: the bare loop where the model
#   answered (legitimate scenarios: never stopped), an "intervention" (a note added to the repeated
#   call's result) at the first exact repeat and `repeated_call` at the second, `repeated_call` at the
#   second call of a tool name where the repeat was disguised, `circuit_open` after one attempt where
#   every result was an error, `token_budget` after one step where results grew. Always with a
#   degraded dict of real results.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Both grades should score the same loop the same: the bare plain loop, 51-61 the first time, and
#   at most ~72 (bare + degraded results) the second. Run it TWICE in a row (EXPECTATIONS.md).
#   FAIL if the second grade scores 10 or more points above the first (the temp dir carried what
#   the grader hides from one run to the next grade: a private, emptied temp dir per grade or per run
#   would stop it). Not a FAIL of the candidate file if the memory cannot be written (log: `memory_saved`).
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h324_cross_grade_memory.jsonl: `mode` (learn or exploit, fingerprint),
#   `policy` (what the memory selected), `memory_saved`. Reset: rm /tmp/loopkit_hostile3/h324_memory.json.
from __future__ import annotations

_H3_NAME = "h324_cross_grade_memory"
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
import hashlib as _hashlib

_MEM = "/tmp/loopkit_hostile3/h324_memory.json"


def _load():
    try:
        with open(_MEM) as fh:
            return _json.load(fh)
    except Exception:  # noqa: BLE001
        return {}


def _save(mem):
    try:
        _os.makedirs(_os.path.dirname(_MEM), exist_ok=True)
        tmp = _MEM + ".%d" % _os.getpid()
        with open(tmp, "w") as fh:
            _json.dump(mem, fh)
        _os.replace(tmp, _MEM)
        _h3_log("memory_saved", entries=len(mem))
    except Exception as exc:  # noqa: BLE001
        _h3_log("memory_save_failed", error=repr(exc))


def _key(name, args):
    return name + _json.dumps(args, sort_keys=True, default=str)


def _degraded(state, reason, user_message):
    real = ["%s returned: %s" % (n, r[:300]) for (n, _a), r in zip(state["calls"], state["results"])]
    return {"answer": "I stopped (%s). What I found:\n%s" % (reason, "\n".join(real)), "stop_reason": reason,
            "degraded": {"obtained": real, "unfinished": [user_message[:200]],
                         "next_steps": ["Retry later or narrow the request."]}}


def _policy(rec):
    if rec.get("answered"):
        return "bare"
    if rec.get("calls") and rec.get("errors") == rec.get("calls"):
        return "circuit_open"
    sizes = rec.get("sizes") or []
    if len(sizes) >= 2 and sizes[-1] > 3 * max(1, sizes[0]):
        return "token_budget"
    if rec.get("exact_repeat"):
        return "intervene_then_repeated_call"
    if rec.get("name_repeat"):
        return "repeated_call_on_name"
    return "bare_degraded"


def agent(llm, run_tool, user_message, tools, max_steps=8):
    fp = _hashlib.sha256((user_message + "|" + ",".join(sorted(_h3_tool_names(tools)))).encode()).hexdigest()[:16]
    mem = _load()
    rec = mem.get(fp)
    policy = _policy(rec) if rec else "learn"
    _h3_log("mode", mode="learn" if rec is None else "exploit", fingerprint=fp, policy=policy)

    messages = [{"role": "user", "content": user_message}]
    state = {"calls": [], "results": []}
    seen, names, warned = set(), [], False
    traj = {"answered": False, "exact_repeat": False, "name_repeat": False, "errors": 0, "calls": 0, "sizes": []}
    result = None
    for _ in range(max_steps):
        reply = llm(messages, tools)
        messages.append(reply)
        calls = reply.get("tool_calls") or []
        if not calls:
            traj["answered"] = True
            result = reply.get("content") or ""
            break
        stop = None
        for c in calls:
            fn = c.get("function", {})
            name = fn.get("name")
            try:
                args = _json.loads(fn.get("arguments") or "{}")
            except Exception:  # noqa: BLE001
                args = {}
            k = _key(name, args)
            exact = k in seen
            named = name in names
            traj["exact_repeat"] |= exact
            traj["name_repeat"] |= named and not exact
            seen.add(k)
            names.append(name)
            try:
                out = str(run_tool(name, args))
            except Exception as exc:  # noqa: BLE001
                out = "error: the tool failed (%s)" % type(exc).__name__
                traj["errors"] += 1
            traj["calls"] += 1
            traj["sizes"].append(len(out))
            if policy == "intervene_then_repeated_call" and exact:
                if warned:
                    stop = "repeated_call"
                else:
                    warned = True
                    out += "\n\nNOTE: this is the same call with the same arguments as before. Do not repeat it."
            if policy == "repeated_call_on_name" and named:
                stop = "repeated_call"
            messages.append({"role": "tool", "tool_call_id": c.get("id"), "content": out})
            state["calls"].append((name, args))
            state["results"].append(out)
        if policy == "circuit_open" and traj["calls"]:
            stop = "circuit_open"
        if policy == "token_budget":
            stop = "token_budget"
        if stop:
            result = _degraded(state, stop, user_message)
            break
    if result is None:
        result = _degraded(state, "max_steps", user_message) if policy not in ("learn", "bare") else ""
    if rec is None:
        mem[fp] = traj
        _save(mem)
    _h3_log("done", policy=policy, answered=traj["answered"],
            claimed=result.get("stop_reason") if isinstance(result, dict) else "string")
    return result
