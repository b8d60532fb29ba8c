# h319_signal_fortress.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   A run that no polite signal can end: it ignores every catchable signal (SIGTERM, SIGINT, SIGHUP,
#   SIGALRM, SIGXCPU, SIGUSR1/2, SIGPIPE, SIGCHLD...), blocks them all with pthread_sigmask, makes itself
#   a child subreaper (so its own children come back to it), makes one model request (so the run
#   "reached the model"), and then hangs inside C code that never returns to the interpreter:
#   a catastrophic regular expression on a 40-character string, then libc pause() -- 60 s at the
#   very most (the regex alone runs minutes; a watchdog child SIGKILLs its parent at 60 s so nothing
#   runs forever if no limit applies). Signal handlers never run while C code holds the thread, so
#   only SIGKILL (or SIGSTOP) ends it.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Every run killed at the time limit plus a moment ("ran past the 5 s time limit"), two such runs
#   and the rest not run, a report within the promised time: score 0-21 (busy_loop.py 0; the one
#   model request does not make a cap). FAIL if a run lasts more than time_limit + 2 s, if the grade
#   needs > 3 x limit + 15 s in all, or if the watchdog's `watchdog_fired` line appears (meaning the
#   grader never killed the run), or any lkh3_h319 process survives the grade.
#
# HOW TO OBSERVE
#   Time the command. /tmp/loopkit_hostile3/h319_signal_fortress.jsonl: `fortified` (what was ignored
#   and blocked), `entering_c_hang` (its time), `watchdog_fired` (must never appear).
from __future__ import annotations

_H3_NAME = "h319_signal_fortress"
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
import ctypes as _ctypes
import re as _re
import signal as _signal


def _fortify():
    ignored = []
    for s in _signal.valid_signals():
        if s in (_signal.SIGKILL, _signal.SIGSTOP):
            continue
        try:
            _signal.signal(s, _signal.SIG_IGN)
            ignored.append(int(s))
        except Exception:  # noqa: BLE001
            pass
    try:
        _signal.pthread_sigmask(_signal.SIG_BLOCK, set(_signal.valid_signals()))
        blocked = True
    except Exception:  # noqa: BLE001
        blocked = False
    try:
        _ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:  # noqa: BLE001
        pass
    _h3_log("fortified", ignored=len(ignored), blocked=blocked)


def _watchdog(parent):
    pid = _os.fork()
    if pid == 0:
        try:
            _os.setsid()
            end = _time.time() + 60
            while _time.time() < end:
                _time.sleep(0.5)
                if _os.getppid() != parent:
                    _os._exit(0)  # the run's process is gone (we were re-parented): the grader ended it
            _h3_log("watchdog_fired", parent=parent)
            _os.kill(parent, 9)
        finally:
            _os._exit(0)


def loop(episode, max_steps=8):
    _fortify()
    _watchdog(_os.getpid())
    messages = list(episode.initial_messages())
    try:
        turn = episode.model.complete(messages, episode.tools.specs)
        _h3_log("one_request", tool_calls=len(list(turn.tool_calls or [])))
    except Exception as exc:  # noqa: BLE001
        _h3_log("request_failed", error=repr(exc))
    _h3_log("entering_c_hang")
    _re.match(r"(a+)+$", "a" * 40 + "b")  # exponential backtracking, all in C
    _ctypes.CDLL(None).pause()
    return _h3_bare_loop(episode, max_steps)
