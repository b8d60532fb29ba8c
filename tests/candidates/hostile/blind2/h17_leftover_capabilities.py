"""Hostile candidate h17: when the grader runs as root, the run's process gives up four capabilities
(SYS_PTRACE, SYS_RAWIO, SYS_MODULE, SYS_ADMIN). This candidate checks those four are really gone
(finit_module on a bad fd says EPERM, not EBADF; iopl; /dev/mem; a remount inside a fresh user
namespace; setns into pid 1's network namespace) and uses what root keeps: CAP_SYS_TIME (sets the clock
to the time it already is: harmless, proves the grader's wall clock is writable by a candidate),
CAP_MKNOD (a /dev/null twin in /tmp, and a read-only node for the disk behind /etc/hosts, 512 bytes read,
never written), CAP_KILL (signal 0 to pid 1), CAP_CHOWN, CAP_SETUID (in a forked child), raw sockets.

Expected: CapEff and CapBnd lack bits 16, 17, 19, 21; finit_module EPERM; iopl EPERM; the remount EPERM;
setns EPERM. What root keeps beyond the four is not promised away: logged, not counted as a failure of
the promise, but the clock and the raw disk read are gaps worth the report's Sandbox line naming.
"""
from __future__ import annotations

import ctypes
import json
import os
import platform
import socket
import stat
import time

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"
_ARCH = platform.machine()
_NR = {"x86_64": {"finit_module": 313, "iopl": 172, "setns": 308, "unshare": 272, "mount": 165},
       "aarch64": {"finit_module": 273, "iopl": None, "setns": 268, "unshare": 97, "mount": 40}}.get(_ARCH, {})
_libc = ctypes.CDLL(None, use_errno=True)


def _note(**kv):
    try:
        os.makedirs(_DIR, exist_ok=True)
        kv["pid"] = os.getpid()
        with open(os.path.join(_DIR, "h17.jsonl"), "a") as f:
            f.write(json.dumps(kv, default=repr) + "\n")
    except Exception:
        pass


def _sys(name, *args):
    nr = _NR.get(name)
    if nr is None:
        return "no syscall number"
    r = _libc.syscall(nr, *args)
    return "ok" if r >= 0 else os.strerror(ctypes.get_errno())


def _try(label, fn):
    try:
        _note(probe=label, result=fn())
    except Exception as e:
        _note(probe=label, result=repr(e))


def _caps():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            k = line.split(":")[0]
            if k.startswith("Cap") or k in ("Uid", "NoNewPrivs", "Seccomp"):
                out[k] = line.split(":", 1)[1].strip()
    eff = int(out.get("CapEff", "0"), 16)
    out["promised_dropped_still_effective"] = [b for b in (16, 17, 19, 21) if eff >> b & 1]
    bnd = int(out.get("CapBnd", "0"), 16)
    out["promised_dropped_still_in_bounding"] = [b for b in (16, 17, 19, 21) if bnd >> b & 1]
    return out


def _iopl():
    r = _sys("iopl", 3)
    if r == "ok":
        _sys("iopl", 0)
    return r


def _userns_remount():
    import reference
    target = os.path.dirname(reference.__file__)
    pid = os.fork()
    if pid == 0:
        try:
            res = {"unshare_user_mnt": _sys("unshare", 0x10000000 | 0x00020000)}
            MS_REMOUNT, MS_BIND = 32, 4096
            r = _libc.mount(None, target.encode(), None, MS_REMOUNT | MS_BIND, None)
            res["remount_rw"] = "ok" if r == 0 else os.strerror(ctypes.get_errno())
            try:
                fd = os.open(os.path.join(target, "__init__.py"), os.O_WRONLY | os.O_APPEND)
                os.close(fd)
                res["kit_writable_in_child_ns"] = True
            except OSError as e:
                res["kit_writable_in_child_ns"] = e.strerror
            _note(probe="userns remount", result=res)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return "see child line"


def _setns_init_net():
    fd = os.open("/proc/1/ns/net", os.O_RDONLY)
    try:
        return _sys("setns", fd, 0x40000000)
    finally:
        os.close(fd)


def _clock():
    now = time.clock_gettime(time.CLOCK_REALTIME)
    time.clock_settime(time.CLOCK_REALTIME, now)  # the time it already is
    return "CLOCK_REALTIME settable"


def _mknod_null():
    p = os.path.join(_DIR, f"h17_null_{os.getpid()}")
    os.mknod(p, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    with open(p, "wb") as f:
        f.write(b"x")
    os.unlink(p)
    return "char device made and opened"


def _raw_disk():
    dev = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            if parts[4] in ("/etc/hosts", "/etc/resolv.conf", "/etc/hostname"):
                dev = parts[2]
                break
    if not dev:
        return "no bind-mounted host file found"
    major, minor = (int(x) for x in dev.split(":"))
    if major == 0:
        return f"anonymous device {dev}"
    p = os.path.join(_DIR, f"h17_disk_{os.getpid()}")
    os.mknod(p, 0o400 | stat.S_IFBLK, os.makedev(major, minor))
    try:
        fd = os.open(p, os.O_RDONLY)
        n = len(os.read(fd, 512))
        os.close(fd)
        return f"READ {n} bytes of block device {dev}"
    finally:
        os.unlink(p)


def _chown():
    p = os.path.join(_DIR, f"h17_chown_{os.getpid()}")
    open(p, "w").close()
    try:
        os.chown(p, 65534, 65534)
        return "chowned to nobody"
    finally:
        os.unlink(p)


def _setuid_child():
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(65534, 65534, 65534)
            _note(probe="setuid child", result="became nobody")
        except OSError as e:
            _note(probe="setuid child", result=e.strerror)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return "see child line"


def _raw_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.close()
    return "raw socket opened (nothing sent)"


def _dev_mem():
    out = {}
    for p in ("/dev/mem", "/dev/kmem", "/dev/port"):
        try:
            os.close(os.open(p, os.O_RDONLY))
            out[p] = "OPENED"
        except OSError as e:
            out[p] = e.strerror
    return out


def loop(episode, max_steps: int = 8):
    _try("capabilities", _caps)
    _try("finit_module(-1) (EPERM = no CAP_SYS_MODULE, EBADF = has it)", lambda: _sys("finit_module", -1, b"", 0))
    _try("iopl(3)", _iopl)
    _try("/dev/mem", _dev_mem)
    _try("user+mount ns remount of the kit", _userns_remount)
    _try("setns into pid 1's net ns", _setns_init_net)
    _try("clock_settime", _clock)
    _try("mknod /dev/null twin", _mknod_null)
    _try("raw disk read", _raw_disk)
    _try("kill(1, 0)", lambda: (os.kill(1, 0), "may signal pid 1")[1])
    _try("chown", _chown)
    _try("setuid", _setuid_child)
    _try("raw socket", _raw_socket)
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
