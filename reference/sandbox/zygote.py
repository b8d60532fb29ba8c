"""A zygote: one fresh interpreter that has imported the kit (and an SDK) and forks a child for each run.

Exec'ing a fresh interpreter for every run (reference/sandbox/fresh.py) costs the kit's import each time,
most of a second of CPU. The zygote pays it once: it is exec'd fresh (so it holds nothing of the grader's
memory), imports what the runs need, and never receives a scenario; for each run the grader hands it the
run's channel and output pipe (SCM_RIGHTS over a control socket), and it forks a child that serves that
run exactly as a fresh interpreter would (reference/sandbox/fresh_main.py). A child forked from it holds the
kit and nothing else. The zygote is non-dumpable and, as root, gives up the capabilities that reach into
another process, so a run cannot tamper with it (or, through it, with the next run); it reaps its children
and tells the grader how each ended. If it dies or stops answering, the run falls back to a fresh exec.
"""
from __future__ import annotations

import atexit
import json
import os
import select
import socket
import time

from .fresh import STARTUP_SECONDS, exec_fresh
from .process import Child

ANSWER_SECONDS = 10.0  # for a running zygote to fork and answer (it does nothing else)


class Zygote:
    def __init__(self, preload: tuple[str, ...]):
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            self.process = Child.fork(lambda: exec_fresh(theirs.fileno(), devnull, None, preload, zygote=True))
        finally:
            theirs.close()
            os.close(devnull)
        self.codes: dict[int, int] = {}  # exit codes the zygote reported, by pid
        ready = self._read(STARTUP_SECONDS) or {}
        self.alive = ready.get("op") == "ready"
        self.isolation = str(ready.get("isolation", ""))[:600]  # reference/sandbox/isolation.py, in one line

    def fork(self, channel_fd: int, out_w: int) -> "ZygoteChild | None":
        """A child serving this channel and writing to this pipe; None if the zygote is gone or stuck."""
        if not self.alive:
            return None
        try:
            socket.send_fds(self.control, [b"fork"], [channel_fd, out_w])
            deadline = time.monotonic() + ANSWER_SECONDS
            while (message := self._read(deadline - time.monotonic())) is not None and "pid" not in message:
                pass
        except OSError:
            message = None
        if not message or not isinstance(message.get("pid"), int):
            self.close()
            return None
        return ZygoteChild(message["pid"], self)

    def _read(self, timeout: float) -> dict | None:
        """The zygote's next message (exit codes are kept as they come), or None on timeout or its end."""
        if not select.select([self.control], [], [], max(timeout, 0))[0]:
            return None
        try:
            data = self.control.recv(4096)
            message = json.loads(data) if data else None
        except (OSError, ValueError):
            message = None
        if not isinstance(message, dict):
            self.alive = False
            return None
        if isinstance(message.get("exited"), int):
            self.codes[message["exited"]] = int(message.get("code", 0))
        return message

    def close(self) -> None:
        self.alive = False
        self.control.close()
        self.process.kill()


class ZygoteChild(Child):
    """A run's process, the zygote's child: watched through a pidfd, its exit code told by the zygote."""

    def __init__(self, pid: int, zygote: Zygote):
        super().__init__(pid)
        self.zygote = zygote

    def poll(self) -> int | None:
        while self.exitcode is None and self.zygote.alive and self.zygote._read(0) is not None:
            pass
        if self.exitcode is None:
            self.exitcode = self.zygote.codes.pop(self.pid, None)
        return self.exitcode

    def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and self.zygote.alive and time.monotonic() < deadline:
            self.zygote._read(deadline - time.monotonic())
        return self.exitcode

    def kill(self) -> None:
        super().kill()
        Child.unreaped.discard(self.pid)  # the zygote reaps it


ZYGOTES: dict[tuple[str, ...], Zygote] = {}


def spawn(channel_fd: int, out_w: int, cpu_seconds: int, preload: tuple[str, ...]) -> Child:
    """A fresh process for one run: forked by the zygote for `preload` (started on first use), else exec'd."""
    zygote = ZYGOTES.get(preload)
    if zygote is None or not zygote.alive:
        zygote = ZYGOTES[preload] = Zygote(preload)
    child = zygote.fork(channel_fd, out_w)
    return child if child is not None else Child.fork(lambda: exec_fresh(channel_fd, out_w, cpu_seconds, preload))


def isolation() -> str:
    """How the runs' processes are isolated (the zygotes' own words), for the report."""
    return "; ".join(dict.fromkeys(z.isolation for z in ZYGOTES.values() if z.alive and z.isolation))


def helpers() -> set[int]:
    """The zygotes' own pids: children of the grader that are not a candidate's (the orphan sweep spares them)."""
    return {z.process.pid for z in ZYGOTES.values() if z.alive}


@atexit.register
def close_all() -> None:
    for zygote in ZYGOTES.values():
        zygote.close()
    ZYGOTES.clear()
