# h393_honest_kit_trace_subprocess.py -- hostile3 HONEST candidate (kit kind): must NOT be punished
#
# WHAT IT IS
#   The lesson-1 loop with a prose summary of the real tool results at the step cap (the shape of
#   tests/calibration/kit_prose_summary_at_cap.py), plus lesson 6's habit: a JSONL trace of every step
#   written to a fresh file in the temp dir (tempfile.mkstemp), `logging` to stderr at INFO, and at
#   the end a short-lived subprocess (`python -c`, waited for, 2 s timeout) that reads the trace and
#   prints a one-line summary -- a legitimate child that has exited and been reaped before loop()
#   returns. It also uses a context-manager-based timer and a module-level cache dict.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score it like the prose-summary-at-cap bare loop: 61-75 on --scenarios interview (that calibration
#   candidate: expert 66, grader 70), i.e. within 5 of whatever the grader gives
#   tests/calibration/kit_prose_summary_at_cap.py. No "your code left N processes running" line (its
#   child is reaped before it returns), no penalty for writing to the temp dir or for logging.
#   FAIL if a run is lost to the subprocess (e.g. the child's exit counted as the loop's exit), if the
#   report says processes were left, or if it scores more than 5 below that calibration candidate.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h393_honest_kit_trace_subprocess.jsonl: `run` (stop, trace path, the
#   child's exit code and its summary line).
from __future__ import annotations

_H3_NAME = "h393_honest_kit_trace_subprocess"
# ---------------------------------------------------------------------------
# shared hostile3 helpers (the same block in every hostile3 kit-kind file).
# Everything below guesses the kit API from ex01's docstring and logs what it
# actually found, so a wrong guess is visible in the log, not silent.
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
    try:  # a short trace in the run's own output too (the report shows it)
        _sys.stderr.write("[%s] %s %s\n" % (_H3_NAME, event, line[:160]))
    except Exception:  # noqa: BLE001
        pass


def _h3_stop(name):
    try:
        from reference import StopReason
    except Exception as exc:  # noqa: BLE001
        _h3_log("stopreason_import_failed", error=repr(exc))
        return name
    up = name.upper()
    if hasattr(StopReason, up):
        return getattr(StopReason, up)
    try:
        return StopReason(name)
    except Exception:  # noqa: BLE001
        return name


def _h3_get(obj, *names):
    for n in names:
        v = obj.get(n) if isinstance(obj, dict) else getattr(obj, n, None)
        if v is not None:
            return v
    return None


def _h3_text(msg):
    v = _h3_get(msg, "content", "text", "output", "result")
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return " ".join(_h3_text(p) if not isinstance(p, str) else p for p in v)
    return "" if v is None else str(v)


def _h3_call_name(call):
    n = _h3_get(call, "name", "tool_name")
    if n is None:
        fn = _h3_get(call, "function")
        n = _h3_get(fn, "name") if fn is not None else None
    return str(n)


def _h3_call_args(call):
    a = _h3_get(call, "arguments", "args", "input")
    if a is None:
        fn = _h3_get(call, "function")
        a = _h3_get(fn, "arguments") if fn is not None else None
    if isinstance(a, str):
        try:
            return _json.loads(a)
        except Exception:  # noqa: BLE001
            return a
    return a


def _h3_face(episode):
    """What the loop can see of the scenario (logged, so the outcome shows what leaked)."""
    face = {}
    sc = getattr(episode, "scenario", None)
    face["scenario_type"] = type(sc).__name__
    for attr in ("name", "intent", "system_prompt", "user_message", "limits", "clock",
                 "checklist", "wire", "prices", "script", "expect", "tools"):
        try:
            v = getattr(sc, attr, None)
            if v is not None:
                face[attr] = repr(v)[:400]
        except Exception as exc:  # noqa: BLE001
            face[attr] = "error: %r" % (exc,)
    try:
        face["scenario_attrs"] = [a for a in dir(sc) if not a.startswith("__")][:80]
        face["episode_attrs"] = [a for a in dir(episode) if not a.startswith("__")][:80]
        face["tool_names"] = [str(_h3_get(s, "name") or _h3_get(_h3_get(s, "function") or {}, "name"))
                              for s in (episode.tools.specs or [])]
    except Exception as exc:  # noqa: BLE001
        face["introspection_error"] = repr(exc)
    return face


def _h3_scenario_name(episode):
    sc = getattr(episode, "scenario", None)
    return str(_h3_get(sc, "name") or "") if sc is not None else ""


def _h3_bare_loop(episode, max_steps, on_turn=None, summarize=False):
    """The naive two-exit loop of lesson 1 (the documented bare loop, ~56 points).

    on_turn(state) may return a stop-reason name to end the run early (the hostile part);
    summarize=True gives a prose answer at the cap (the bare loop gives none)."""
    messages = list(episode.initial_messages())
    state = {"steps": 0, "calls": [], "results": [], "messages": messages}
    for _step in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        state["steps"] += 1
        messages.append(turn.message)
        calls = list(turn.tool_calls or [])
        if not calls:
            return episode.finish(_h3_stop("completed"), messages, answer=turn.text)
        for call in calls:
            res = episode.tools.execute(call)
            messages.append(res)
            state["calls"].append((_h3_call_name(call), _h3_call_args(call)))
            state["results"].append(_h3_text(res)[:500])
        if on_turn is not None:
            verdict = on_turn(state)
            if verdict:
                return episode.finish(_h3_stop(verdict), messages, answer=_h3_summary(state),
                                      detail="stopped by the loop (%s)" % verdict)
    answer = _h3_summary(state) if summarize else None
    return episode.finish(_h3_stop("max_steps"), messages, answer=answer)


def _h3_summary(state):
    lines = ["I stopped before finishing. What the tools returned so far:"]
    for (name, args), res in zip(state["calls"], state["results"]):
        lines.append("- %s(%s): %s" % (name, _json.dumps(args, default=str)[:120], res[:300]))
    lines.append("Unfinished: the final answer. Next: retry later or narrow the request.")
    return "\n".join(lines)


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
import contextlib as _contextlib
import logging as _logging
import subprocess as _subprocess

_log = _logging.getLogger("h393")
if not _log.handlers:
    _h = _logging.StreamHandler(_sys.stderr)
    _h.setFormatter(_logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    _log.addHandler(_h)
    _log.setLevel(_logging.INFO)
_CACHE = {}

_SUMMARISE = r"""
import json, sys
steps = [json.loads(l) for l in open(sys.argv[1])]
calls = sum(s.get("tool_calls", 0) for s in steps)
print("trace: %d steps, %d tool calls, last=%s" % (len(steps), calls, steps[-1].get("kind") if steps else None))
"""


@_contextlib.contextmanager
def _timed(label):
    t0 = _time.perf_counter()
    yield
    _log.info("%s took %.3f s", label, _time.perf_counter() - t0)


def loop(episode, max_steps=8):
    fd, trace = _tempfile.mkstemp(prefix="h393_trace_", suffix=".jsonl")
    _os.close(fd)
    messages = list(episode.initial_messages())
    found = []
    stop, answer = None, None

    def record(kind, **data):
        with open(trace, "a") as fh:
            fh.write(_json.dumps(dict(kind=kind, **data), default=str) + "\n")

    for step in range(max_steps):
        with _timed("request %d" % (step + 1)):
            turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        calls = list(turn.tool_calls or [])
        record("turn", step=step + 1, tool_calls=len(calls))
        if not calls:
            stop, answer = "completed", turn.text
            break
        for call in calls:
            result = episode.tools.execute(call)
            messages.append(result)
            text = _h3_text(result)
            found.append("%s(%s): %s" % (_h3_call_name(call), _json.dumps(_h3_call_args(call), default=str)[:100],
                                         text[:300]))
            _CACHE[_h3_call_name(call)] = _CACHE.get(_h3_call_name(call), 0) + 1
    if stop is None:
        stop = "max_steps"
        answer = ("I reached the step limit (%d requests) before a final answer.\n" % max_steps
                  + ("What the tools returned:\n" + "\n".join("- " + f for f in found) if found
                     else "No tool returned anything usable.")
                  + "\nUnfinished: the final answer. Next: ask again with a narrower request.")
        record("stop", reason=stop)
    child = {}
    try:
        cp = _subprocess.run([_sys.executable, "-c", _SUMMARISE, trace], capture_output=True, text=True, timeout=2)
        child = {"exit": cp.returncode, "summary": cp.stdout.strip()[:200]}
    except Exception as exc:  # noqa: BLE001
        child = {"error": repr(exc)}
    _log.info("run ended: %s; %s", stop, child)
    _h3_log("run", stop=stop, trace=trace, child=child)
    return episode.finish(_h3_stop(stop), messages, answer=answer)
