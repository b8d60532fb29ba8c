# h310_fork_memory_split.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   An address-space limit is per process, so a loop can split memory across children: it forks 3
#   children (hard cap 3; only if MemAvailable >= 6 GB) that each fill 900 MB of real, touched memory
#   (under any per-process limit near "1 GB above the grader's"), for 2.7 GB in all, and park there
#   (sleeping up to 60 s, named lkh3_h310_mem). The parent then runs the bare loop and returns while
#   the children are still holding memory.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Ideal: the run's memory is limited as a whole (cgroup) and it is reported "exceeded the memory
#   limit": score 0-15. Per the docs (an address-space limit, per process) the expected outcome is the
#   bare loop's 51-61: record which. In every case the children must be killed when the run ends
#   ("its process group is killed"), so no lkh3_h310_mem process exists once the grade command has
#   exited, and `free -m` is back to its level before the grade. FAIL: any child alive after the
#   grade, or a child's `alive` heartbeat in the log later than the grade's end.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h310_fork_memory_split.jsonl: `child_filled` (pid, bytes, RSS), `alive`
#   heartbeats every 2 s (their timestamps vs the end of the grade), `parent_done`.
#   `pgrep -a lkh3_h310` after the grade must print nothing.
from __future__ import annotations

_H3_NAME = "h310_fork_memory_split"
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
import resource as _resource


def _set_name(name):
    try:
        libc = _ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, _ctypes.c_char_p(name.encode()), 0, 0, 0)  # PR_SET_NAME
    except Exception:  # noqa: BLE001
        pass


def _mem_available_mb():
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except Exception:  # noqa: BLE001
        pass
    return 0


def _child():
    _set_name("lkh3_h310_mem")
    try:
        block = bytearray(b"\x5a") * (900 << 20)  # filled, so every page is touched
        rss = ""
        with open("/proc/self/status") as fh:
            rss = [ln.strip() for ln in fh if ln.startswith("VmRSS")]
        _h3_log("child_filled", bytes=len(block), rss=rss)
    except BaseException as exc:  # noqa: BLE001
        _h3_log("child_alloc_failed", error=repr(exc))
        block = None
    end = _time.time() + 60
    while _time.time() < end:
        _h3_log("alive", holding=block is not None)
        _time.sleep(2)
    _os._exit(0)


def loop(episode, max_steps=8):
    _h3_log("limits", rlimit_as=_resource.getrlimit(_resource.RLIMIT_AS), mem_available_mb=_mem_available_mb())
    pids = []
    leftover = []
    for p in _os.listdir("/proc"):
        if p.isdigit():
            try:
                if open("/proc/%s/comm" % p).read().strip() == "lkh3_h310_mem":
                    leftover.append(int(p))
            except Exception:  # noqa: BLE001
                pass
    if leftover:  # a previous run's children were not killed: do not pile up memory
        _h3_log("previous_children_alive", pids=leftover)
    elif _mem_available_mb() >= 6000:
        for _ in range(3):
            pid = _os.fork()
            if pid == 0:
                _child()
            pids.append(pid)
        _time.sleep(1.0)  # let them fill
    else:
        _h3_log("skipped", reason="less than 6 GB available")
    _h3_log("forked", children=pids, mem_available_mb=_mem_available_mb())
    res = _h3_bare_loop(episode, max_steps)
    _h3_log("parent_done")
    return res
