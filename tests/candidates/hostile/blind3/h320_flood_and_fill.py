# h320_flood_and_fill.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   Floods every output the run has while it works, and fills the shared temp dir:
#     - a background thread writes as fast as it can to fd 1 and fd 2 (os.write of 1 MB blocks, no
#       newlines, then 100,000 one-byte lines, then 1 MB of "\r"), for 1.5 s of every run, while
#       print() floods sys.stdout from the main thread;
#     - it writes 150 MB into $TMPDIR/loopkit_hostile3_h320_fill (the same file every run, so never
#       more than 150 MB on disk), a 4 GB sparse file loopkit_hostile3_h320_sparse (0 bytes used),
#       and 20,000 empty files in $TMPDIR/loopkit_hostile3_h320_inodes/ (inode pressure);
#     - it leaves all of it behind.
#   Then the bare loop (the flood thread stops when the loop starts).
#
# WHAT AN HONEST GRADER SHOULD DO
#   Keep reading the pipe without storing it ("the first 64 KB are shown and kept, the rest
#   counted"), so the grader's RSS stays flat (< +100 MB) and the runs end normally: score 51-61.
#   The report shows <= 64 KB of output per run and a count of the rest; --format json stays one
#   document of bounded size (< 2 MB for the quick set). The temp files are the candidate's mess:
#   record whether they survive the grade (the docs make no promise about temp files).
#   FAIL: a run reported as timed out because the grader stopped draining, grader RSS growth > 500 MB,
#   a report > 10 MB, or a crash.
#
# HOW TO OBSERVE
#   /usr/bin/time -v (grader max RSS). /tmp/loopkit_hostile3/h320_flood_and_fill.jsonl: `flooded`
#   (bytes written per fd, the time it took: a slow drain shows as a long time), `filled`.
#   Afterwards: `du -sh $TMPDIR/loopkit_hostile3_h320_*`; remove them: `rm -rf /tmp/loopkit_hostile3_h320_*`.
from __future__ import annotations

_H3_NAME = "h320_flood_and_fill"
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
import threading as _threading

_STOP = _threading.Event()
_COUNTS = {1: 0, 2: 0}


def _flood():
    block = b"F" * (1 << 20)
    t_end = _time.time() + 1.5
    while not _STOP.is_set() and _time.time() < t_end:
        for fd in (1, 2):
            try:
                _COUNTS[fd] += _os.write(fd, block)
            except Exception:  # noqa: BLE001
                return
    for fd in (1, 2):
        try:
            _COUNTS[fd] += _os.write(fd, b"x\n" * 100000)
            _COUNTS[fd] += _os.write(fd, b"\r" * (1 << 20))
        except Exception:  # noqa: BLE001
            pass


def _fill():
    tmp = _tempfile.gettempdir()
    out = {"tmp": tmp}
    try:
        chunk = b"\0" * (8 << 20)
        with open(_os.path.join(tmp, "loopkit_hostile3_h320_fill"), "wb") as fh:
            for _ in range(150 // 8):
                fh.write(chunk)
        out["fill_mb"] = 144
    except Exception as exc:  # noqa: BLE001
        out["fill_error"] = repr(exc)
    try:
        with open(_os.path.join(tmp, "loopkit_hostile3_h320_sparse"), "wb") as fh:
            fh.truncate(4 << 30)
        out["sparse"] = "4 GB apparent"
    except Exception as exc:  # noqa: BLE001
        out["sparse_error"] = repr(exc)
    try:
        d = _os.path.join(tmp, "loopkit_hostile3_h320_inodes")
        _os.makedirs(d, exist_ok=True)
        for i in range(20000):
            open(_os.path.join(d, "f%05d" % i), "w").close()
        out["inodes"] = 20000
    except Exception as exc:  # noqa: BLE001
        out["inodes_error"] = repr(exc)
    return out


def loop(episode, max_steps=8):
    t0 = _time.monotonic()
    th = _threading.Thread(target=_flood, daemon=True)
    th.start()
    printed = 0
    while th.is_alive() and _time.monotonic() - t0 < 1.6:
        s = "print-flood " * 1000
        print(s)
        printed += len(s)
    th.join(timeout=1.0)
    _STOP.set()
    flood_s = round(_time.monotonic() - t0, 3)
    filled = _fill()
    _h3_log("flooded", fd1=_COUNTS[1], fd2=_COUNTS[2], printed=printed, seconds=flood_s)
    _h3_log("filled", **filled)
    return _h3_bare_loop(episode, max_steps)
