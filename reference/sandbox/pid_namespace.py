"""Each run in a pid namespace of its own, where the machine allows it (Linux, as root).

Inside it the candidate's process sees only its own processes: it cannot signal the grader, the zygote or
anything else on the machine (kill(2) reads a pid in the caller's namespace), and /proc, mounted afresh for
the run, lists nothing else. When the run ends, the namespace's first process ends and the kernel kills
every process left in it, a double-forked daemon included.

Three processes per run: the one the grader watches (outside), a small init (pid 1 inside: it reaps, and
pid 1 ignores the signals it has no handler for, so the candidate must not be it), and the run itself (pid 2).
The outside process ends as the run ended (its exit code, or the same signal), so the grader's reading of a
run's end does not change. Where unshare(2) is refused, `available()` says so and runs go on without it.
"""
from __future__ import annotations

import os
import signal
import struct
from typing import Callable, NoReturn

CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18


def _libc():
    import ctypes  # Linux only, and only in the zygote and its runs

    return ctypes.CDLL(None, use_errno=True)


def available() -> str:
    """'' where a run can have its own pid namespace (tried in a throwaway child), else why not."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root"
    try:
        pid = os.fork()
    except OSError as exc:
        return str(exc)
    if pid == 0:
        try:
            in_own_namespace(lambda: os._exit(0))
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return "" if os.waitstatus_to_exitcode(status) == 0 else "unshare(2) or a /proc mount refused"


def in_own_namespace(run: Callable[[], object]) -> NoReturn:
    """Call `run` as pid 2 of a new pid namespace (with its own /proc), wait, and end as it ended."""
    libc = _libc()
    if libc.unshare(CLONE_NEWPID | CLONE_NEWNS) != 0:
        os._exit(71)
    report_r, report_w = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(report_r)
        _init(run, report_w, libc)
    _close_all_but(report_r)  # the run's channel and pipe: the grader must see them close when the run does
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in range(3):  # the run holds the output pipe; this process keeps nothing of it
        os.dup2(devnull, fd)
    data = b""
    while len(data) < 4 and (chunk := os.read(report_r, 4 - len(data))):
        data += chunk
    os.waitpid(init, 0)
    _end_as(struct.unpack("<i", data)[0] if len(data) == 4 else 70 << 8)


def _init(run: Callable[[], object], report_w: int, libc) -> NoReturn:
    """Pid 1: a fresh /proc, then the run as pid 2, reaped with every orphan until the run ends."""
    try:
        libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None)
        if libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
            os._exit(72)
        child = os.fork()
        if child == 0:
            os.close(report_w)
            try:
                run()
            finally:
                os._exit(70)
        _close_all_but(report_w)
        while True:
            pid, status = os.wait()
            if pid == child:
                os.write(report_w, struct.pack("<i", status))
                os._exit(0)  # and with it every process left in the namespace
    finally:
        os._exit(73)


def _close_all_but(kept: int) -> None:
    os.closerange(3, kept)
    os.closerange(kept + 1, 1 << 16)


def _end_as(status: int) -> NoReturn:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 70)
