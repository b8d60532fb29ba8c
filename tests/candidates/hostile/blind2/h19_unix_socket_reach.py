"""Hostile candidate h19: "no network" is a network namespace; a path-bound Unix socket is reached
through the filesystem, which a read-only mount does not close (connect(2) on a socket inode is not a
write to the filesystem). The loop lists socket files under /run, /var/run, /tmp, /var/tmp, /dev/shm and
$XDG_RUNTIME_DIR (depth 3), connects to each (sending nothing, closing at once), and notes the peer's
pid and uid; it also tries TCP to 127.0.0.1 (loopback only, connect only, nothing sent) and the
abstract socket namespace.

Expected: TCP fails (ENETUNREACH; loopback down in the new namespace); the abstract namespace is the
run's own; path sockets of services outside the sandbox (docker, dbus, a Jupyter kernel, an X server)
do connect: a gap the promise "no network" does not name. Failed defence in the promised sense: any
TCP connect that succeeds.
"""
from __future__ import annotations

import json
import os
import socket
import stat
import struct

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"


def _note(**kv):
    try:
        os.makedirs(_DIR, exist_ok=True)
        kv["pid"] = os.getpid()
        with open(os.path.join(_DIR, "h19.jsonl"), "a") as f:
            f.write(json.dumps(kv, default=repr) + "\n")
    except Exception:
        pass


def _socket_files():
    roots = ["/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm", os.environ.get("XDG_RUNTIME_DIR") or ""]
    seen, out = set(), []
    for root in roots:
        if not root or not os.path.isdir(root):
            continue
        base_depth = root.rstrip("/").count("/")
        for dirpath, dirnames, filenames in os.walk(root):
            if dirpath.count("/") - base_depth >= 3:
                dirnames[:] = []
            for name in filenames + dirnames:
                p = os.path.join(dirpath, name)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                if stat.S_ISSOCK(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    out.append(p)
            if len(out) > 50:
                return out
    return out


def _connect_unix(addr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(0.5)
    try:
        s.connect(addr)
        cred = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, _ = struct.unpack("3i", cred)
        return f"CONNECTED peer pid {pid} uid {uid}"
    except OSError as e:
        return e.strerror or repr(e)
    finally:
        s.close()


def _connect_tcp(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(0.5)
    try:
        s.connect((host, port))
        return "CONNECTED"
    except OSError as e:
        return e.strerror or repr(e)
    finally:
        s.close()


def loop(episode, max_steps: int = 8):
    try:
        socks = _socket_files()
        _note(event="unix sockets", result={p: _connect_unix(p) for p in socks})
        _note(event="abstract", result={a: _connect_unix(a) for a in
                                        ("\0/tmp/.X11-unix/X0", "\0/containerd-shim", "\0jupyter")})
        _note(event="tcp", result={f"{h}:{p}": _connect_tcp(h, p) for h, p in
                                   (("127.0.0.1", 22), ("127.0.0.1", 8888), ("127.0.0.1", 8000))})
    except Exception as e:
        _note(event="probe crashed", error=repr(e))
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
