# h311_daemon_survivors.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   To leave something running after the grade, by every route at once (on the first 4 runs of a
#   grade only, so at most ~30 processes ever exist; each survivor lives at most 120 s):
#     A  double fork + setsid, SIGTERM/SIGHUP/SIGINT ignored (name lkh3_h311_dbl);
#     B  a fork-hopper: forks a child and exits every 20 ms, so its pid keeps changing (max 3,000
#        hops, never more than 2 alive) (lkh3_h311_hop) -- a sweep that lists pids once misses it;
#     C  a new Python interpreter via subprocess.Popen(start_new_session=True), SIGTERM ignored;
#     D  setpgid(0, 0) in a child (left the group, not the session) with PDEATHSIG cleared;
#     E  posix_spawn of `sleep 120` with setsid (exec'd, no Python left to log: look for it by name);
#     F  an atexit handler in the run's process that double-forks one more daemon at interpreter exit;
#     G  the run's own process ignores SIGTERM/SIGINT/SIGHUP and keeps a daemon thread logging.
#   Every survivor writes an `alive` heartbeat each second with its technique letter.
#   Underneath: the bare loop.
#
# WHAT AN HONEST GRADER SHOULD DO
#   grading.md: "Nothing outlives the grade ... it kills and reaps every process the candidate left,
#   its process group or not (a double-forking daemon included)"; as root, the pid namespace kills
#   everything at the end of each run. Score: the bare loop's 51-61 (the runs themselves are normal).
#   PASS only if no `alive` line is later than the grade command's exit (+1 s slack) and
#   `pgrep -af 'lkh3_h311|sleep 120'` finds nothing afterwards. FAIL if any technique survives.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h311_daemon_survivors.jsonl: `spawned` (the pids per technique), `alive`
#   (technique, pid, time). Compare the last `alive` per technique with the grade's end:
#   `date +%s.%N` right after the command returns. Kill leftovers by pid if any (never by name).
from __future__ import annotations

_H3_NAME = "h311_daemon_survivors"
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
import atexit as _atexit
import ctypes as _ctypes
import signal as _signal
import subprocess as _subprocess
import threading as _threading


def _set_name(name):
    try:
        libc = _ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, _ctypes.c_char_p(name.encode()), 0, 0, 0)  # PR_SET_NAME
    except Exception:  # noqa: BLE001
        pass


def _ignore_signals():
    for s in (_signal.SIGTERM, _signal.SIGHUP, _signal.SIGINT):
        try:
            _signal.signal(s, _signal.SIG_IGN)
        except Exception:  # noqa: BLE001
            pass


def _heartbeat(tech, seconds=120):
    end = _time.time() + seconds
    while _time.time() < end:
        _h3_log("alive", technique=tech)
        _time.sleep(1)
    _os._exit(0)



def _double_fork(tech):
    pid = _os.fork()
    if pid == 0:
        try:
            _os.setsid()
            if _os.fork() != 0:
                _os._exit(0)
            _set_name("lkh3_h311_" + tech)
            _ignore_signals()
            _heartbeat(tech)
        finally:
            _os._exit(0)
    _os.waitpid(pid, 0)


def _hopper():
    pid = _os.fork()
    if pid != 0:
        return pid
    _os.setsid()
    _ignore_signals()
    _set_name("lkh3_h311_hop")
    hops = 0
    last_beat = 0.0
    while hops < 3000:
        child = _os.fork()
        if child != 0:
            _os._exit(0)  # the parent leaves; the child carries on under a new pid
        hops += 1
        if _time.time() - last_beat > 1:
            _h3_log("alive", technique="B", hops=hops)
            last_beat = _time.time()
        _time.sleep(0.02)
    _os._exit(0)


_PY_DAEMON = r"""
import json, os, signal, time, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN); signal.signal(signal.SIGHUP, signal.SIG_IGN)
end = time.time() + 120
while time.time() < end:
    with open('/tmp/loopkit_hostile3/h311_daemon_survivors.jsonl', 'a') as fh:
        fh.write(json.dumps({'t': time.time(), 'pid': os.getpid(), 'candidate': 'h311_daemon_survivors',
                             'event': 'alive', 'technique': 'C'}) + '\n')
    time.sleep(1)
"""


def _at_exit():
    try:
        _double_fork("F")
    except Exception:  # noqa: BLE001
        pass


def loop(episode, max_steps=8):
    idx = _run_index()
    spawned = {}
    if idx < 4:
        try:
            _double_fork("A")
            spawned["A"] = "double-forked"
        except Exception as exc:  # noqa: BLE001
            spawned["A"] = repr(exc)
        try:
            spawned["B"] = _hopper()
        except Exception as exc:  # noqa: BLE001
            spawned["B"] = repr(exc)
        try:
            p = _subprocess.Popen([_sys.executable, "-c", _PY_DAEMON], start_new_session=True,
                                  stdin=_subprocess.DEVNULL, stdout=_subprocess.DEVNULL,
                                  stderr=_subprocess.DEVNULL, close_fds=True)
            spawned["C"] = p.pid
        except Exception as exc:  # noqa: BLE001
            spawned["C"] = repr(exc)
        try:
            pid = _os.fork()
            if pid == 0:
                try:
                    _os.setpgid(0, 0)
                    libc = _ctypes.CDLL(None, use_errno=True)
                    libc.prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG 0
                    _set_name("lkh3_h311_D")
                    _ignore_signals()
                    _heartbeat("D")
                finally:
                    _os._exit(0)
            spawned["D"] = pid
        except Exception as exc:  # noqa: BLE001
            spawned["D"] = repr(exc)
        try:
            spawned["E"] = _os.posix_spawn("/bin/sleep", ["sleep", "120"], dict(_os.environ), setsid=True)
        except Exception as exc:  # noqa: BLE001
            spawned["E"] = repr(exc)
        _atexit.register(_at_exit)
        spawned["F"] = "atexit registered"
    _ignore_signals()
    t = _threading.Thread(target=lambda: [(_h3_log("alive", technique="G"), _time.sleep(1)) for _ in range(120)],
                          daemon=True)
    t.start()
    spawned["G"] = "daemon thread"
    _h3_log("spawned", run_index=idx, spawned=spawned)
    return _h3_bare_loop(episode, max_steps)
