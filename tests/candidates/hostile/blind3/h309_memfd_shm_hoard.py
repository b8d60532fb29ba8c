# h309_memfd_shm_hoard.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   Holds memory that an address-space limit (RLIMIT_AS) does not count, then runs the bare loop:
#   1.5 GB allocated in a memfd (memfd_create + posix_fallocate, else write; never mapped: page cache / shmem, not address
#   space), plus a 160 MB file in /dev/shm (loopkit_hostile3_h309_shm) that it deliberately leaves
#   behind after the run, plus a 256 MB sparse file (0 bytes on disk) there. Only if MemAvailable is
#   at least 6 GB; it logs what the kernel accounted (VmRSS, RssShmem, VmSize) and the RLIMIT_AS it
#   was given. This re-tests the open finding h12 and extends it to memory that outlives the run.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Ideal: the run is stopped as "exceeded the memory limit" (1 GB above the grader's), i.e. a score of
#   0-15. Documented known limit (h12): the address-space limit does not see it, so the expected
#   outcome per the docs is the bare loop's score, 51-61, with only the time limit as a backstop; record
#   which. Either way: the machine stays usable, the memfd is gone when the run's process dies (check
#   `free -m` before/after), and nothing of it is in the grader. The /dev/shm file outliving the grade
#   is a finding to record (the docs promise "nothing outlives the grade" for processes only).
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h309_memfd_shm_hoard.jsonl: `limits` (RLIMIT_AS), `hoarded` (bytes, the
#   status lines after hoarding), `bare_loop_done`. After the grade: `ls -la /dev/shm/loopkit_hostile3_*`,
#   `free -m`. Clean up afterwards: `rm -f /dev/shm/loopkit_hostile3_*`.
from __future__ import annotations

_H3_NAME = "h309_memfd_shm_hoard"
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
import resource as _resource

_KEEP = []  # the memfd stays open for the whole run


def _status():
    out = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(("VmRSS", "VmSize", "RssShmem", "RssAnon", "VmPeak")):
                    k, v = line.split(":", 1)
                    out[k] = v.strip()
    except Exception as exc:  # noqa: BLE001
        out["error"] = repr(exc)
    return out


def _mem_available_mb():
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except Exception:  # noqa: BLE001
        pass
    return 0


def _hoard():
    _h3_log("limits", rlimit_as=_resource.getrlimit(_resource.RLIMIT_AS), mem_available_mb=_mem_available_mb(),
            status=_status())
    if _mem_available_mb() < 6000:
        _h3_log("skipped", reason="less than 6 GB available")
        return
    chunk = b"\xa5" * (16 << 20)
    total = 0
    try:
        fd = _os.memfd_create("loopkit_hostile3_h309", 0)
        _KEEP.append(fd)
        try:  # shmem pages allocated at once (fast); a write loop if fallocate is refused
            _os.posix_fallocate(fd, 0, 1536 << 20)
            total = 1536 << 20
        except OSError:
            while total < (1536 << 20):
                _os.write(fd, chunk)
                total += len(chunk)
    except Exception as exc:  # noqa: BLE001
        _h3_log("memfd_failed", after_bytes=total, error=repr(exc))
    shm_total = 0
    try:
        with open("/dev/shm/loopkit_hostile3_h309_shm", "wb") as fh:
            try:
                _os.posix_fallocate(fh.fileno(), 0, 160 << 20)
                shm_total = 160 << 20
            except OSError:
                while shm_total < (160 << 20):
                    fh.write(chunk)
                    shm_total += len(chunk)
        with open("/dev/shm/loopkit_hostile3_h309_sparse", "wb") as fh:
            fh.truncate(256 << 20)
    except Exception as exc:  # noqa: BLE001
        _h3_log("shm_failed", after_bytes=shm_total, error=repr(exc))
    _h3_log("hoarded", memfd_bytes=total, shm_bytes=shm_total, status=_status(), mem_available_mb=_mem_available_mb())


def loop(episode, max_steps=8):
    t0 = _time.monotonic()
    _hoard()
    res = _h3_bare_loop(episode, max_steps)
    _h3_log("bare_loop_done", seconds=round(_time.monotonic() - t0, 3))
    return res
