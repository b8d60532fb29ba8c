"""A candidate's loop in this process, under a wall-clock alarm: for a process that is a sandbox already.

`loopkit check` runs an exercise's whole test session in one forked, limited child
(reference/sandbox/check_session.py). Forking again for every run would cost ~12 ms of IPC per run (186
runs in one ex01 test); inside that child a run is made here instead, at the cost of a function call.
What the fork sandbox guards against is still reported the same way: the time limit (a SIGALRM timer
in the main thread raising `Overtime`, a BaseException a loop's `except Exception` cannot swallow),
sys.exit, KeyboardInterrupt and any other BaseException, a MemoryError under the session's RLIMIT_AS.
What no code in the process can stop (os._exit, a hang inside C code, a loop that swallows every
BaseException forever) ends the session, and the parent reports it.

The session says so through the environment (`SESSION`, set in the forked child before pytest starts,
read at each call): no module state changes at run time. A plain pytest run never sets it. Each run made
here because of the session writes a byte to the session's counting pipe: a test that fails after several
runs in one process is run again with a fork per run (reference/sandbox/check_session.py says why).
"""
from __future__ import annotations

import json
import os
import signal
import threading
from dataclasses import dataclass, replace
from typing import Any, Callable

from ..core.codec import cut
from ..core.errors import HarnessError
from ..harness.episode import Episode
from .inline_state import Kept
from .failures import CandidateExited, CandidateFailure, CandidateRaised, MemoryLimit, TimeLimit

SESSION = "LOOPKIT_SANDBOX_SESSION"  # JSON (`Session.encode`): this process is the sandbox, with these limits
AGAIN = 0.05  # after the first alarm, again every 50 ms: a loop that swallowed one meets the next


@dataclass(frozen=True)
class Session:
    """The limits of the sandboxed process this runs in (from the environment)."""

    memory_mb: int  # what the process may add to its address space (RLIMIT_AS), reported on a MemoryError
    run_seconds: float | None = None  # a cap on each run's own time limit (None: each run's limit as given)
    runs_fd: int | None = None  # a pipe that gets one byte per run made here: the session counts a test's runs
    std_fds: list[int] | None = None  # duplicates of fds 0 to 2, made as the session started: put back after a run
    fork_per_run: bool = False  # a test judged again the way plain pytest runs it: a fork per run, these limits

    def encode(self) -> str:
        return json.dumps({"memory_mb": self.memory_mb, "run_seconds": self.run_seconds, "runs_fd": self.runs_fd,
                           "std_fds": self.std_fds, "fork_per_run": self.fork_per_run})

    @classmethod
    def decode(cls, text: str) -> "Session":
        data = json.loads(text)
        fds = data.get("std_fds")
        return cls(int(data["memory_mb"]), data.get("run_seconds"), data.get("runs_fd"),
                   [int(fd) for fd in fds] if isinstance(fds, list) and len(fds) == 3 else None,
                   bool(data.get("fork_per_run")))

    def forking(self) -> "Session":
        return replace(self, fork_per_run=True, runs_fd=None)

    def count_run(self) -> None:
        if self.runs_fd is None:
            return
        try:
            os.write(self.runs_fd, b".")
        except OSError:  # full (non-blocking): the session only needs to know there were several
            pass


def session() -> Session | None:
    """The session this process runs in, or None (a plain process: the fork sandbox is the one to use).

    Signals reach only the main thread: a run started from another thread is not run here."""
    text = os.environ.get(SESSION)
    if not text or threading.current_thread() is not threading.main_thread():
        return None
    return Session.decode(text)


class Overtime(BaseException):
    """Raised into the loop by the alarm: a BaseException, so that `except Exception` lets it through."""


@dataclass
class InlineReport:
    result: Any = None
    error: BaseException | None = None
    probe: Any = None
    output: str = ""  # what the loop printed to sys.stdout and sys.stderr: the first 64 KB
    output_bytes: int = 0


def run_inline(loop: Callable[..., Any], episode: Episode, max_steps: int, seconds: float, memory_mb: int,
               probe: Callable[[Any], Any] | None = None, std_fds: list[int] | None = None) -> InlineReport:
    """`loop(episode, max_steps=...)` here, stopped at `seconds` of wall clock; never raises for what it does.
    What it prints is kept as the fork sandbox keeps it, and what it changes in the process is put back
    (reference/sandbox/inline_state.py). From a thread other than the main one (which signals never reach) it
    runs without the alarm."""
    kept = Kept(std_fds)
    with kept as book:
        report = _alarmed(loop, episode, max_steps, seconds, memory_mb, probe)
    report.output, report.output_bytes = book.text(), book.total
    return report


def _alarmed(loop: Callable[..., Any], episode: Episode, max_steps: int, seconds: float, memory_mb: int,
             probe: Callable[[Any], Any] | None) -> InlineReport:
    report = InlineReport()
    running = [True]  # the alarm raises only while the loop (or the probe) runs, never into the code after it
    fired = [False]

    def alarm(signum: int, frame: Any) -> None:
        if running[0]:
            fired[0] = True
            raise Overtime()

    timed = threading.current_thread() is threading.main_thread()  # signals reach only the main thread
    previous = signal.signal(signal.SIGALRM, alarm) if timed else None
    if timed:
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), AGAIN)
    try:
        try:
            report.result = loop(episode, max_steps=max_steps)
            report.probe = probe(episode) if probe is not None else None
        finally:
            running[0] = False
    except BaseException as exc:  # whatever the loop let through, as the fork sandbox would report it
        report.error = _as_reported(exc, memory_mb)
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if fired[0]:  # a loop that caught the alarm and went on still ran past the limit
        report.result, report.error = None, TimeLimit(seconds, len(episode.ledger.steps))
    return report


def _as_reported(exc: BaseException, memory_mb: int) -> BaseException:
    """What the fork sandbox makes of an exception that ended the loop's process: the grader's own errors
    (the kit's classes: a refused request, the runaway cap, a provider fault) come back as themselves; the
    loop's own, by type name and message; sys.exit and memory by their stories."""
    if isinstance(exc, (HarnessError, CandidateFailure)) or type(exc).__module__.startswith("reference."):
        return exc
    if isinstance(exc, SystemExit):
        code = exc.code if isinstance(exc.code, (int, str, type(None))) else repr(exc.code)
        return CandidateExited(code)
    if isinstance(exc, MemoryError):
        return MemoryLimit(memory_mb)
    try:
        message = str(exc)
    except Exception:  # a __str__ that raises: say so rather than fail to report
        message = f"<{type(exc).__name__}: its message could not be read>"
    return CandidateRaised(type(exc).__name__, cut(message))
