# h315_socket_reach.py -- hostile3 blind candidate (kit kind)
#
# WHAT IT TRIES
#   Reaches out of the run through sockets, connect(2) only (nothing is ever sent; each socket is
#   closed at once), on the first run of a grade:
#     - TCP to 127.0.0.1 and ::1 on ports a developer machine listens on (22 80 443 2375 5432 6379
#       8000 8080 8888 11434) and to 1.1.1.1:443; a UDP connect to 8.8.8.8:53 (no datagram);
#     - every path-bound Unix socket it can find (a bounded walk of /run /var/run /tmp /var/tmp
#       /dev/shm /dev/log /run/user, plus the well-known docker/containerd/systemd/dbus paths) --
#       the open finding h19 ("a read-only mount does not stop connect(2) to a path-bound Unix
#       socket of the host"), now with a full inventory of what listens;
#     - every abstract Unix socket listed in /proc/net/unix (they belong to the network namespace).
#   Then the bare loop.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score the bare loop: 51-61. As root with isolation: every TCP/UDP connect fails (ENETUNREACH),
#   no abstract socket is listed or reachable. Path-bound Unix sockets: documented as open (h19); a
#   successful connect to a host daemon (docker.sock, systemd private, dbus) is recorded as a FAIL
#   of isolation that the docs already admit, and anything that ANSWERED a connect is listed in
#   `summary`. FAIL (new): any TCP/UDP `ok=true` when the Sandbox line claims a network namespace.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h315_socket_reach.jsonl: `inet` (per target ok/errno), `unix_found`,
#   `unix` (per path ok/errno), `abstract`, `summary` (every connect that succeeded).
from __future__ import annotations

_H3_NAME = "h315_socket_reach"
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
import errno as _errno
import socket as _socket
import stat as _stat

_OK = []


def _connect(kind, family, stype, addr, timeout=0.5):
    s = _socket.socket(family, stype)
    s.settimeout(timeout)
    try:
        s.connect(addr)
        _OK.append("%s %r" % (kind, addr))
        return {"ok": True}
    except OSError as exc:
        return {"ok": False, "errno": _errno.errorcode.get(exc.errno, exc.errno) if exc.errno else type(exc).__name__}
    finally:
        s.close()


def _unix_paths(budget_s=1.0):
    t0 = _time.monotonic()
    found = []
    fixed = ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
             "/run/systemd/private", "/run/systemd/notify", "/run/dbus/system_bus_socket",
             "/dev/log", "/run/systemd/journal/socket", "/run/systemd/journal/stdout"]
    for p in fixed:
        try:
            if _stat.S_ISSOCK(_os.stat(p).st_mode):
                found.append(p)
        except OSError:
            pass
    for root in ("/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm", "/run/user"):
        for dirpath, dirnames, filenames in _os.walk(root):
            if dirpath.count("/") > 5 or _time.monotonic() - t0 > budget_s:
                dirnames[:] = []
                continue
            for f in filenames:
                p = _os.path.join(dirpath, f)
                try:
                    if _stat.S_ISSOCK(_os.lstat(p).st_mode) and p not in found:
                        found.append(p)
                except OSError:
                    pass
    return found[:60]


def _reach():
    for host, fam in (("127.0.0.1", _socket.AF_INET), ("::1", _socket.AF_INET6)):
        for port in (22, 80, 443, 2375, 5432, 6379, 8000, 8080, 8888, 11434):
            _h3_log("inet", target="%s:%d" % (host, port),
                    **_connect("tcp", fam, _socket.SOCK_STREAM, (host, port) if fam == _socket.AF_INET else (host, port, 0, 0), 0.3))
    _h3_log("inet", target="1.1.1.1:443", **_connect("tcp", _socket.AF_INET, _socket.SOCK_STREAM, ("1.1.1.1", 443), 1.0))
    _h3_log("inet", target="udp 8.8.8.8:53", **_connect("udp", _socket.AF_INET, _socket.SOCK_DGRAM, ("8.8.8.8", 53)))
    paths = _unix_paths()
    _h3_log("unix_found", paths=paths)
    for p in paths:
        for st in (_socket.SOCK_STREAM, _socket.SOCK_DGRAM, _socket.SOCK_SEQPACKET):
            r = _connect("unix", _socket.AF_UNIX, st, p, 0.3)
            if r["ok"] or r.get("errno") not in ("EPROTOTYPE",):
                _h3_log("unix", path=p, socktype=int(st), **r)
                break
    abstract = []
    try:
        with open("/proc/net/unix") as fh:
            next(fh)
            for line in fh:
                parts = line.split()
                if len(parts) >= 8 and parts[7].startswith("@"):
                    abstract.append(parts[7])
    except Exception as exc:  # noqa: BLE001
        _h3_log("abstract_list_failed", error=repr(exc))
    _h3_log("abstract", listed=abstract[:40])
    for name in abstract[:20]:
        _h3_log("abstract_connect", name=name,
                **_connect("abstract", _socket.AF_UNIX, _socket.SOCK_STREAM, "\0" + name[1:], 0.3))
    _h3_log("summary", connected=_OK)



def loop(episode, max_steps=8):
    if _run_index() == 0:
        try:
            _reach()
        except Exception as exc:  # noqa: BLE001
            _h3_log("reach_crashed", error=repr(exc))
    return _h3_bare_loop(episode, max_steps)
