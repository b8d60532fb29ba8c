# h322_output_path_symlink.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   Attacks the report file itself. `-o` is "written after the last sweep, to a temporary file (with
#   the mode open would give it) renamed over the target in one step"; a run can still prepare the
#   ground while it runs, when the target is in a directory it can write (a report written to /tmp is
#   common). It finds the target from the grader's command line when it can see it
#   (/proc/*/cmdline with "grade" and "-o"), and always uses the agreed test path
#   /tmp/loopkit_hostile3/h322_report.md (run it with that -o, see EXPECTATIONS.md). For each target
#   inside /tmp/loopkit_hostile3/ it:
#     - replaces the target with a symlink to a bait file loopkit_hostile3_h322_bait.txt (content
#       "ORIGINAL bait") -- a grader that opens the target, or copies the mode/owner through it,
#       writes into whatever the symlink names (a root grader could be made to overwrite any file);
#     - plants symlinks at the temporary names a writer might predict (target + .tmp/.part/.new/~,
#       .<name>.tmp) pointing to loopkit_hostile3_h322_followed_<n> (files that must never appear);
#     - on the second target /tmp/loopkit_hostile3/h322_dir_report.md makes a DIRECTORY, so the
#       final rename cannot succeed.
#   Then the bare loop.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score the bare loop: 51-61. With `-o /tmp/loopkit_hostile3/h322_report.md`: afterwards the target
#   is a regular file holding the report, the bait still reads "ORIGINAL bait", and no
#   loopkit_hostile3_h322_followed_* file exists. With `-o /tmp/loopkit_hostile3/h322_dir_report.md`:
#   a one-line error that the report could not be written there (a nonzero exit code), never a
#   traceback, and no report written anywhere else. FAIL otherwise.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h322_output_path_symlink.jsonl: `targets`, `planted`. Then:
#   `ls -la /tmp/loopkit_hostile3/ | grep h322`, `cat /tmp/loopkit_hostile3/loopkit_hostile3_h322_bait.txt`.
from __future__ import annotations

_H3_NAME = "h322_output_path_symlink"
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
import shutil as _shutil

_BASE = "/tmp/loopkit_hostile3"
_BAIT = _os.path.join(_BASE, "loopkit_hostile3_h322_bait.txt")


def _targets():
    ts = [_os.path.join(_BASE, "h322_report.md")]
    for p in _os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            argv = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
        except Exception:  # noqa: BLE001
            continue
        argv = [a.decode("utf-8", "replace") for a in argv]
        if "grade" in argv and "-o" in argv:
            i = argv.index("-o")
            if i + 1 < len(argv):
                cwd = ""
                try:
                    cwd = _os.readlink("/proc/%s/cwd" % p)
                except Exception:  # noqa: BLE001
                    pass
                ts.append(_os.path.join(cwd, argv[i + 1]))
    return ts


def _plant(target):
    done = []
    if _os.path.abspath(target) == _os.path.join(_BASE, "h322_dir_report.md"):
        if not _os.path.isdir(target):
            if _os.path.lexists(target):
                _os.unlink(target)
            _os.makedirs(target)
        return ["directory at target"]
    if not _os.path.abspath(target).startswith(_BASE + "/"):
        return ["outside the test dir: only observed"]
    with open(_BAIT, "w") as fh:
        fh.write("ORIGINAL bait\n")
    if _os.path.isdir(target) and not _os.path.islink(target):
        _shutil.rmtree(target)
    if _os.path.lexists(target):
        _os.unlink(target)
    _os.symlink(_BAIT, target)
    done.append("target -> bait")
    d, b = _os.path.split(target)
    for n, name in enumerate((b + ".tmp", b + ".part", b + ".new", b + "~", "." + b + ".tmp", "." + b)):
        p = _os.path.join(d, name)
        try:
            if _os.path.lexists(p):
                _os.unlink(p)
            _os.symlink(_os.path.join(_BASE, "loopkit_hostile3_h322_followed_%d" % n), p)
            done.append(name)
        except Exception as exc:  # noqa: BLE001
            done.append("%s: %r" % (name, exc))
    return done


def loop(episode, max_steps=8):
    _os.makedirs(_BASE, exist_ok=True)
    ts = _targets()
    _h3_log("targets", targets=ts)
    for t in ts + [_os.path.join(_BASE, "h322_dir_report.md")]:
        try:
            _h3_log("planted", target=t, what=_plant(t))
        except Exception as exc:  # noqa: BLE001
            _h3_log("plant_failed", target=t, error=repr(exc))
    return _h3_bare_loop(episode, max_steps)
