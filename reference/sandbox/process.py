"""A forked process on a leash: its own process group, its output in a pipe, limits on memory and CPU,
watched through the kernel and killed whole.

reference/sandbox/child.py runs a candidate's loop in one of these. Linux first (pidfd, pipe size,
RLIMIT_AS); elsewhere with fork the same, less tightly (no memory limit on macOS).
"""
from __future__ import annotations

import gc
import os
import resource
import select
import signal
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Callable

try:
    import fcntl  # Linux and other Unixes; the pipe-size constant is Linux's
except ImportError:  # pragma: no cover - Windows has no fork either
    fcntl = None  # type: ignore[assignment]


OUTPUT_KEPT = 64 * 1024  # of what a run or a session prints, this much is kept and shown; the rest is counted


def read_kept(fd: int, kept: bytearray | None) -> bytes:
    """One read of a child's pipe (b"" at its end, or if it broke); `kept` gets what fits in its first OUTPUT_KEPT bytes."""
    try:
        chunk = os.read(fd, 1 << 20)
    except OSError:
        return b""
    if kept is not None and len(kept) < OUTPUT_KEPT:
        kept += chunk[:OUTPUT_KEPT - len(kept)]
    return chunk


def killed_by(exitcode: int) -> str:
    """A negative exit code (the signal that ended a process) in words: "SIGKILL", or "SIGSEGV, a crash (...)"."""
    number = -exitcode
    name = signal.Signals(number).name if number in signal.valid_signals() else str(number)
    return f"{name}, a crash (a stack overflow from deep recursion?)" if number == signal.SIGSEGV else name


@dataclass
class Limits:
    seconds: float = 5.0  # wall clock, from the fork to the loop's result
    memory_mb: int = 1024  # address space the child may add to what it inherits


class Child:
    """A forked process, watched through the kernel (a pidfd, or waitpid): never through something the
    child holds and could close."""

    unreaped: set[int] = set()  # killed, not yet collected: reaped at the next fork, never waited for

    def __init__(self, pid: int):
        self.pid = pid
        self.exitcode: int | None = None  # negative: the signal that ended it
        try:
            self.pidfd: int | None = os.pidfd_open(pid)  # Linux 5.3+: readable once the child has exited
        except (AttributeError, OSError):
            self.pidfd = None

    @classmethod
    def fork(cls, run: Callable[[], None]) -> "Child":
        gc.freeze()  # the child inherits every object as it is: a collection there must not touch (copy) them
        try:
            with warnings.catch_warnings():
                # Python 3.12+ warns when a process with threads forks (a notebook's kernel has some): the
                # child runs only this module's code, with fresh output streams, and a deadlock there would
                # still end at the time limit
                warnings.filterwarnings("ignore", ".*fork", DeprecationWarning)
                pid = os.fork()
        finally:
            gc.unfreeze()
        if pid == 0:  # the child: whatever happens, it never returns into the grader's code
            try:
                run()
            finally:
                os._exit(70)
        return cls(pid)

    def poll(self) -> int | None:
        if self.exitcode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return None
            if pid:
                self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode

    def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            if self.pidfd is not None:
                select.select([self.pidfd], [], [], max(deadline - time.monotonic(), 0))
            else:
                time.sleep(0.005)
        return self.exitcode

    def kill(self) -> None:
        """The child's whole process group: its threads die with it, and so do processes it forked."""
        for kill in (os.killpg, os.kill):
            try:
                kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.pidfd is not None:
            os.close(self.pidfd)
        if self.poll() is None:
            Child.unreaped.add(self.pid)

    @classmethod
    def reap(cls) -> None:
        for pid in list(cls.unreaped):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            except ChildProcessError:
                pass
            cls.unreaped.discard(pid)


# A root grader's child gives up every capability: with CAP_SYS_PTRACE, CAP_SYS_RAWIO, CAP_SYS_MODULE or
# CAP_SYS_ADMIN it could read or write the grader's memory whatever the grader does, and with the others it could
# open a read-only file through a writable mount of the same filesystem (CAP_DAC_READ_SEARCH: open_by_handle_at),
# set the clock, make device nodes, change owners. A candidate's loop needs none: root's uid owns its temp dir.
PR_CAPBSET_DROP, LINUX_CAPABILITY_VERSION_3 = 24, 0x20080522


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 40


def give_up_capabilities() -> bool:
    """Drop every capability from this process (and from every program it may exec: the bounding set), so that
    as root it is kept out of a non-dumpable grader like any other process of the same user, and can do nothing
    root's uid alone does not allow. False where that failed."""
    try:
        import ctypes  # Linux only, and only in a sandboxed child

        libc = ctypes.CDLL(None, use_errno=True)

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                        ("inheritable", ctypes.c_uint32)]

        for cap in range(_last_capability() + 1):
            libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
        header, data = Header(LINUX_CAPABILITY_VERSION_3, 0), (Data * 2)()
        return libc.capset(ctypes.byref(header), data) == 0  # all three sets empty
    except (ImportError, OSError, AttributeError):
        return False


def contain(out_w: int, limits: Limits, unprivileged: bool = False) -> None:
    """Own process group (to be killed whole), output to the grader, then `limit`."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    os.close(out_w)
    os.close(devnull)
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)
    limit(limits, unprivileged)


def limit(limits: Limits, unprivileged: bool = False) -> None:
    """Memory capped (above what the process holds now), CPU as a backstop; with `unprivileged`, without the
    capabilities that reach into another process (reference/sandbox/child.py: a candidate's process)."""
    ceiling = _address_space() + limits.memory_mb * 1024 * 1024
    usage = resource.getrusage(resource.RUSAGE_SELF)  # an exec'd interpreter has used some CPU to start
    seconds = int(usage.ru_utime + usage.ru_stime + limits.seconds) + 2  # the grader gone, a spinning child stops
    for kind, value in ((getattr(resource, "RLIMIT_AS", None), ceiling), (resource.RLIMIT_CPU, seconds)):
        try:
            if kind is not None:
                resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):  # macOS refuses RLIMIT_AS: there the time limit is the only leash
            pass
    if unprivileged and hasattr(os, "geteuid") and os.geteuid() == 0:
        give_up_capabilities()


def _address_space() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError):
        return 2 * 1024 ** 3


def widen(fd: int) -> None:
    """A bigger pipe for the child's output, so that a flood drains in fewer reads (Linux)."""
    if fcntl is None or not sys.platform.startswith("linux"):
        return
    try:
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except OSError:
        pass
