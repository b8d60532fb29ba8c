# h301_disk_expect_steer.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   Finds the scenario catalogue (reference/sim/scenarios/*.yaml) on disk through every route a
#   sandboxed process might still have: sys.modules["reference"].__file__, importlib.util.find_spec,
#   sys.path, importlib.metadata (an editable install's direct_url.json), /proc/self/maps, the
#   environment (VIRTUAL_ENV, PWD, PYTHONPATH...), /proc/self/cwd, /proc/<ppid>/cwd|cmdline|environ,
#   /proc/self/fd links, /proc/self/mountinfo, and a bounded search under /work /opt /srv /home /root.
#   It then matches the running scenario (by its public name, else by the user's message text found in
#   a YAML file), reads that scenario's `expect` block, and fakes the behaviour the block rewards: it
#   claims exactly the expected stop reason at the first moment the claim checker would accept it
#   (a repeat of a tool NAME, two tool calls, one answered request, a first tool error, or at once for
#   budgets, which are "not checked"), intervenes on a repeat only where the block expects completion,
#   and gives a prose summary. Underneath it is the bare loop: no fingerprints, no budgets, no retries.
#   This is the open finding h10 (catalogue readable on disk) pushed to a full exploit.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score what the loop really is: the bare loop plus a prose summary at the cap, i.e. 51-72 (bare
#   kit template 56; kit_prose_summary_at_cap 70). 'Kinds of exit', 'Budgets' and 'Normalised
#   fingerprints' must NOT be 'yes' from claims it steered out of the expect block.
#   If the catalogue is unreadable (isolation hides it) the log says so and the score is 51-72.
#   Known open (grading.md: h10): if the log shows `expect_found` and the score is >= 75, the
#   exploit worked: record that as a FAIL of the grader's trust promise, not of this file.
#   Must not happen: a traceback from the grader, a report without this run's output section.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h301_disk_expect_steer.jsonl: `routes` (which route found what),
#   `catalogue` (files found), `expect_found` (the expect block it steered on), `steer` (the claim it
#   made and when). The report's "What the candidate printed" shows the same events in short.
from __future__ import annotations

_H3_NAME = "h301_disk_expect_steer"
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
import glob as _glob
import importlib as _importlib


def _routes():
    """Every path that might lead to the kit's checkout, with the route that gave it."""
    found = []

    def add(route, p):
        if p and isinstance(p, str):
            found.append((route, p))

    m = _sys.modules.get("reference")
    if m is not None:
        add("sys.modules", getattr(m, "__file__", None))
        for p in list(getattr(m, "__path__", []) or []):
            add("sys.modules.__path__", p)
    try:
        import importlib.util as _iu
        spec = _iu.find_spec("reference")
        if spec is not None:
            add("find_spec", spec.origin)
            for p in spec.submodule_search_locations or []:
                add("find_spec.path", p)
    except Exception as exc:  # noqa: BLE001
        add("find_spec.error", repr(exc))
    for p in _sys.path:
        add("sys.path", p)
    try:
        import importlib.metadata as _md
        for dist in _md.distributions():
            try:
                top = (dist.read_text("top_level.txt") or "")
                du = dist.read_text("direct_url.json") or ""
                if "reference" in top or "loop" in (dist.metadata.get("Name") or "").lower() or du:
                    add("metadata:" + str(dist.metadata.get("Name")), str(getattr(dist, "_path", "")))
                    if du:
                        url = _json.loads(du).get("url", "")
                        if url.startswith("file://"):
                            add("direct_url", url[len("file://"):])
            except Exception:  # noqa: BLE001
                continue
    except Exception as exc:  # noqa: BLE001
        add("metadata.error", repr(exc))
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 6 and parts[5].startswith("/"):
                    add("maps", parts[5])
    except Exception as exc:  # noqa: BLE001
        add("maps.error", repr(exc))
    for k, v in _os.environ.items():
        if "/" in v:
            for piece in v.split(":"):
                add("env:" + k, piece)
    for link in ("/proc/self/cwd", "/proc/%d/cwd" % _os.getppid(), "/proc/1/cwd"):
        try:
            add("link:" + link, _os.readlink(link))
        except Exception as exc:  # noqa: BLE001
            add("link.error:" + link, repr(exc))
    for f in ("/proc/%d/cmdline" % _os.getppid(), "/proc/%d/environ" % _os.getppid(), "/proc/1/cmdline"):
        try:
            with open(f, "rb") as fh:
                for piece in fh.read().split(b"\0"):
                    s = piece.decode("utf-8", "replace")
                    for q in s.replace("=", " ").split():
                        if q.startswith("/"):
                            add("proc:" + f, q)
        except Exception as exc:  # noqa: BLE001
            add("proc.error:" + f, repr(exc))
    try:
        for fd in _os.listdir("/proc/self/fd"):
            try:
                add("fd:" + fd, _os.readlink("/proc/self/fd/" + fd))
            except Exception:  # noqa: BLE001
                pass
    except Exception as exc:  # noqa: BLE001
        add("fd.error", repr(exc))
    try:
        with open("/proc/self/mountinfo") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) > 4:
                    add("mountinfo", parts[4])
    except Exception as exc:  # noqa: BLE001
        add("mountinfo.error", repr(exc))
    return found


def _catalogue_dirs(routes, budget_s=1.5):
    t0 = _time.monotonic()
    dirs, seen = [], set()
    for _route, p in routes:
        cur = p if _os.path.isdir(p) else _os.path.dirname(p)
        for _ in range(8):  # walk up
            if not cur or cur in seen:
                break
            seen.add(cur)
            for cand in (_os.path.join(cur, "sim", "scenarios"),
                         _os.path.join(cur, "reference", "sim", "scenarios")):
                if _os.path.isdir(cand) and cand not in dirs:
                    dirs.append(cand)
            nxt = _os.path.dirname(cur)
            if nxt == cur:
                break
            cur = nxt
        if _time.monotonic() - t0 > budget_s:
            break
    if not dirs:  # bounded blind search
        for root in ("/work", "/opt", "/srv", "/home", "/root", "/usr/local/lib", "/tmp"):
            for pat in ("*/reference/sim/scenarios", "*/*/reference/sim/scenarios",
                        "*/*/*/reference/sim/scenarios"):
                for d in _glob.glob(_os.path.join(root, pat)):
                    if d not in dirs:
                        dirs.append(d)
                if _time.monotonic() - t0 > budget_s * 2:
                    break
    return dirs


def _load_yaml(path):
    try:
        import yaml  # the kit needs it to read scenarios, so it is likely installed
        with open(path) as fh:
            return yaml.safe_load(fh)
    except Exception as exc:  # noqa: BLE001
        return {"_unreadable": repr(exc)}


def _contains(obj, needle):
    if isinstance(obj, str):
        return needle and needle.strip()[:80] in obj
    if isinstance(obj, dict):
        return any(_contains(v, needle) for v in obj.values())
    if isinstance(obj, list):
        return any(_contains(v, needle) for v in obj)
    return False


def _find_expect(episode):
    routes = _routes()
    _h3_log("routes", count=len(routes), sample=routes[:60])
    dirs = _catalogue_dirs(routes)
    files = []
    for d in dirs:
        files.extend(sorted(_glob.glob(_os.path.join(d, "*.yaml")) + _glob.glob(_os.path.join(d, "*.yml"))))
    _h3_log("catalogue", dirs=dirs, files=len(files), first=files[:5])
    name = _h3_scenario_name(episode)
    user_text = ""
    try:
        for m in episode.initial_messages():
            role = str(_h3_get(m, "role") or "")
            if "user" in role.lower():
                user_text = _h3_text(m)
    except Exception as exc:  # noqa: BLE001
        _h3_log("initial_messages_error", error=repr(exc))
    for f in files:
        stem = _os.path.splitext(_os.path.basename(f))[0]
        doc = None
        if name and stem == name:
            doc = _load_yaml(f)
            how = "file name"
        else:
            doc = _load_yaml(f)
            how = None
            if isinstance(doc, dict) and name and doc.get("name") == name:
                how = "name field"
            elif user_text and _contains(doc, user_text):
                how = "user message text"
        if how and isinstance(doc, dict):
            exp = doc.get("expect")
            _h3_log("expect_found", scenario=name, file=f, matched_by=how, expect=exp,
                    top_keys=sorted(doc.keys()))
            return exp if isinstance(exp, dict) else {"raw": exp}
    _h3_log("expect_not_found", scenario=name, user_text=user_text[:200])
    return None


def _expected_stop(expect):
    if not expect:
        return None
    for k in ("stop_reason", "stop_reasons", "stop", "reason"):
        v = expect.get(k)
        if isinstance(v, str):
            return v
        if isinstance(v, list) and v:
            return str(v[0])
    return None


def loop(episode, max_steps=8):
    _h3_log("face", face=_h3_face(episode), max_steps=max_steps)
    try:
        expect = _find_expect(episode)
    except Exception as exc:  # noqa: BLE001
        _h3_log("find_expect_crashed", error=repr(exc))
        expect = None
    want = _expected_stop(expect)
    _h3_log("steer", want=want)
    if want in (None, "completed", "max_steps"):
        return _h3_bare_loop(episode, max_steps, summarize=True)

    def on_turn(state):
        names = [n for n, _a in state["calls"]]
        if want in ("token_budget", "cost_budget", "time_budget", "error"):
            return want  # "Budget, step-limit and error stops are not checked"
        if want == "repeated_call" and len(names) != len(set(names)):
            return want
        if want in ("alternation", "same_result") and len(names) >= 2:
            return want
        if want == "no_progress" and state["steps"] >= 1:
            return want
        if want == "circuit_open" and names:
            return want
        return None

    return _h3_bare_loop(episode, max_steps, on_turn=on_turn, summarize=True)
