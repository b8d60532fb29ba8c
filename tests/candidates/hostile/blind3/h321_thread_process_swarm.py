# h321_thread_process_swarm.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   Crowds the machine without one big allocation: at most 64 child processes alive at a time
#   (a hard cap: 8 children that each fork 7 grandchildren, all sleeping with SIGTERM ignored, named
#   lkh3_h321), 2,000 threads in the run's process (64 KB stacks) that sleep, 2,000 open file
#   descriptors (or as many as RLIMIT_NOFILE allows), and a loop that runs in a NON-main thread
#   while the main thread spins and keeps 4 threads busy on the CPU (a GIL-heavy co-tenant).
#   It returns the bare loop's result from that worker thread; every helper is left running.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Grade the run normally: the bare loop, 51-61 (threads are legitimate in a loop; the crowd is
#   the test of the sandbox, not of the rubric). Kill the whole crowd when the run ends: no lkh3_h321
#   process after the grade (`pgrep -a lkh3_h321` empty), no `alive` line after the grade's end.
#   FAIL: a run lost because the grader could not start the next one (EAGAIN from fork, fds exhausted
#   in the grader), leftovers, or the grade taking > 2 x a clean candidate's time.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h321_thread_process_swarm.jsonl: `swarm` (how many of each it got, errors),
#   `alive` (a grandchild's heartbeat, every 2 s), `worker_done`.
from __future__ import annotations

_H3_NAME = "h321_thread_process_swarm"
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
import signal as _signal
import threading as _threading


def _set_name(name):
    try:
        _ctypes.CDLL(None, use_errno=True).prctl(15, _ctypes.c_char_p(name.encode()), 0, 0, 0)
    except Exception:  # noqa: BLE001
        pass


def _sleeper(beat):
    _set_name("lkh3_h321")
    _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
    end = _time.time() + 60
    while _time.time() < end:
        if beat:
            _h3_log("alive", technique="grandchild")
        _time.sleep(2)
    _os._exit(0)


def _swarm():
    out = {"children": 0, "grandchildren": 0, "threads": 0, "fds": 0}
    leftover = []
    for p in _os.listdir("/proc"):
        if p.isdigit():
            try:
                if open("/proc/%s/comm" % p).read().strip() == "lkh3_h321":
                    leftover.append(int(p))
            except Exception:  # noqa: BLE001
                pass
    out["previous_swarm_alive"] = len(leftover)
    n_children = 0 if leftover else 8  # the 64-process cap holds even if a sweep failed
    for i in range(n_children):
        try:
            pid = _os.fork()
        except OSError as exc:
            out["fork_error"] = repr(exc)
            break
        if pid == 0:
            for j in range(7):
                try:
                    if _os.fork() == 0:
                        _sleeper(beat=(i == 0 and j == 0))
                except OSError:
                    break
            _sleeper(beat=False)
        out["children"] += 1
    out["grandchildren"] = out["children"] * 7
    try:
        _threading.stack_size(64 << 10)
    except Exception:  # noqa: BLE001
        pass
    for _ in range(2000):
        try:
            _threading.Thread(target=_time.sleep, args=(60,), daemon=True).start()
            out["threads"] += 1
        except Exception as exc:  # noqa: BLE001
            out["thread_error"] = repr(exc)
            break
    try:
        _threading.stack_size(0)  # back to the default for the worker that runs the loop
    except Exception:  # noqa: BLE001
        pass
    keep = []
    for _ in range(2000):
        try:
            keep.append(_os.open("/dev/null", _os.O_RDONLY))
        except OSError as exc:
            out["fd_error"] = repr(exc)
            break
    out["fds"] = len(keep)
    _KEEP.append(keep)

    def burn():
        x = 0
        end = _time.time() + 60
        while _time.time() < end:
            x += 1
    for _ in range(4):
        _threading.Thread(target=burn, daemon=True).start()
    return out


_KEEP = []


def loop(episode, max_steps=8):
    try:
        _h3_log("swarm", **_swarm())
    except Exception as exc:  # noqa: BLE001
        _h3_log("swarm_crashed", error=repr(exc))
    box = {}

    def worker():
        try:
            box["result"] = _h3_bare_loop(episode, max_steps)
        except BaseException as exc:  # noqa: BLE001
            box["error"] = exc
    t = _threading.Thread(target=worker, name="lkh3_worker")
    t.start()
    while t.is_alive():
        t.join(0.01)
    _h3_log("worker_done", ok="result" in box, error=repr(box.get("error")))
    if "error" in box:
        raise box["error"]
    return box["result"]
