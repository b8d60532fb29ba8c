"""The pytest session of `loopkit check` and `loopkit hint`, in one forked child on a leash.

One child runs all of an exercise's tests (reference/sandbox/process.py: its own process group, a memory
limit, a wall-clock limit for the whole session). Inside it, every run of the learner's loop is made in
process under a per-run alarm (reference/sandbox/inline.py, switched on by `SESSION` in the child's
environment), not in a fork of its own: a run costs a function call instead of ~12 ms of IPC, and an
exercise is checked in about a second. The child streams what happens (tests collected, each test's
start, outcome and end) through a pipe as it happens, so that whatever ends the child (os._exit, a hang
in C code, a loop that swallows every exception forever, memory) the parent still has every finished
outcome and knows which test was running.
"""
from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import selectors
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.errors import LimitsRefused
from .inline import SESSION, Session
from .check_reporter import Reporter, writer
from .process import OUTPUT_KEPT, Child, Limits, contain, killed_by, read_kept, widen

ENV_SECONDS, ENV_MEMORY, ENV_RUN = "LOOPKIT_CHECK_SECONDS", "LOOPKIT_CHECK_MEMORY_MB", "LOOPKIT_CHECK_RUN_SECONDS"


MAX_SECONDS = 3600.0  # a limit above an hour is a typo
MIN_MEMORY_MB, MAX_MEMORY_MB = 128, 1024 * 1024  # pytest itself needs about 100 MB to start
BROKE = 86  # the child's exit code when the check's own machinery failed (an exception escaped pytest or the report)
THREAD_STACK = 1024 * 1024  # per thread, in the session (CPython's own on musl): a leaked thread costs 1 MB, not 8


@dataclass(frozen=True)
class CheckLimits:
    seconds: float = 60.0  # wall clock for the whole session; the exercises take about a second
    memory_mb: int = 1024  # what the session may add to the address space it starts with (RLIMIT_AS)
    run_seconds: float | None = None  # a cap on each run's time limit (None: each run's own, 5 s by default)

    @classmethod
    def from_env(cls) -> "CheckLimits":
        """The defaults, or what LOOPKIT_CHECK_SECONDS, _MEMORY_MB and _RUN_SECONDS say (see `loopkit check -h`);
        LimitsRefused names a variable whose value is not a usable limit."""
        run = os.environ.get(ENV_RUN)
        return cls(_seconds(ENV_SECONDS, os.environ.get(ENV_SECONDS), cls.seconds),
                   _megabytes(ENV_MEMORY, os.environ.get(ENV_MEMORY), cls.memory_mb),
                   None if run is None else _seconds(ENV_RUN, run, 0.0))


def _seconds(name: str, text: str | None, default: float) -> float:
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SECONDS:  # also refuses nan
        raise LimitsRefused(f"{name}={text!r} is not a limit: give a number of seconds above 0 and at most "
                            f"{MAX_SECONDS:g} (e.g. {name}=120)")
    return value


def _megabytes(name: str, text: str | None, default: int) -> int:
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not MIN_MEMORY_MB <= value <= MAX_MEMORY_MB:
        raise LimitsRefused(f"{name}={text!r} is not a limit: give a whole number of megabytes from {MIN_MEMORY_MB} "
                            f"to {MAX_MEMORY_MB} (e.g. {name}=2048)")
    return value


@dataclass
class SessionLog:
    """What the child said, in order, and how it ended."""

    collected: list[str] = field(default_factory=list)
    outcomes: list[tuple[str, bool, str]] = field(default_factory=list)  # (test, passed, explanation)
    running: str | None = None  # started and not finished when the session ended
    exit_code: int | None = None  # pytest's, when the session ended on its own
    interrupted: str = ""  # the KeyboardInterrupt (or the like) that ended pytest's session early
    internal: str = ""  # the exception that broke pytest's own machinery (its INTERNALERROR), in one line
    ended: str = ""  # why the child ended before pytest did, in words ("" when it did not)
    output: str = ""
    on_outcome: Callable[[str, bool, str], None] | None = None  # told of each outcome as it comes

    def read(self, message: dict[str, Any]) -> None:
        if "start" in message:
            self.running = message["start"]
        elif "finish" in message:
            self.running = None
        elif "outcome" in message:
            test, passed, why = message["outcome"]
            self.outcomes.append((str(test), bool(passed), str(why)))
            if self.on_outcome is not None:
                self.on_outcome(*self.outcomes[-1])
        elif "collected" in message:
            self.collected = [str(t) for t in message["collected"]]
        elif "interrupted" in message:
            self.interrupted = str(message["interrupted"])
        elif "internal" in message:
            self.internal = str(message["internal"])
        elif "exit" in message:
            self.exit_code = int(message["exit"])


def run_session(args: list[str], explain: Callable[[Any], str], limits: CheckLimits,
                on_outcome: Callable[[str, bool, str], None] | None = None) -> SessionLog:
    """pytest.main(args) in a sandboxed child; what it reported, even if it never finished (and each outcome
    to `on_outcome` as it comes)."""
    import pytest  # heavy, and only `check` and `hint` need it: imported once here, inherited by the child
    from _pytest.runner import runtestprotocol  # pytest's protocol for one test, which the rerun calls again

    log = SessionLog(on_outcome=on_outcome)
    if not hasattr(os, "fork"):  # Windows: nothing to fork, so the tests run here, without the session's limits
        return _here(pytest.main, args, log, Reporter(log.read, explain, None, runtestprotocol))
    Child.reap()
    events_r, events_w = os.pipe()
    out_r, out_w = os.pipe()
    widen(out_w)

    def session() -> None:
        os.close(events_r)
        os.close(out_r)
        contain(out_w, Limits(limits.seconds, limits.memory_mb))
        few_arenas()
        threading.stack_size(THREAD_STACK)
        runs_r, runs_w = os.pipe()
        os.set_blocking(runs_r, False)
        os.set_blocking(runs_w, False)
        std_fds = [os.dup(fd) for fd in (0, 1, 2)]  # put back after each run (reference/sandbox/inline_state.py)
        os.environ[SESSION] = Session(limits.memory_mb, limits.run_seconds, runs_w, std_fds).encode()
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # plugins the exercise tests do not need cost time
        reporter = Reporter(writer(events_w), explain, runs_r, runtestprotocol, std_fds)
        gc.freeze()  # what is loaded by now stays: collections (pytest ends with two full ones) skip it
        try:
            code = pytest.main(args, plugins=[reporter])
            reporter.send(exit=int(code))
        except BaseException:  # the check's own machinery broke (out of memory, files closed, print replaced...)
            os._exit(BROKE)
        os._exit(0)  # no atexit, no waiting for threads the learner's code left behind

    child = Child.fork(session)
    os.close(events_w)
    os.close(out_w)
    try:
        _follow(child, events_r, out_r, log, limits)
    finally:
        child.kill()
        os.close(events_r)
        os.close(out_r)
    return log


def _here(main: Callable[..., Any], args: list[str], log: SessionLog, reporter: Reporter) -> SessionLog:
    """pytest in this process, what it prints kept (each run as run_candidate makes it where it cannot fork)."""
    autoload = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            log.exit_code = int(main(args, plugins=[reporter]))
    finally:
        if autoload is None:
            del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = autoload
    log.output = printed.getvalue()[:OUTPUT_KEPT]
    return log


def _follow(child: Child, events_r: int, out_r: int, log: SessionLog, limits: CheckLimits) -> None:
    """Read the child's events and output until it reports pytest's exit code, ends, or runs out of time."""
    deadline = time.monotonic() + limits.seconds
    selector = selectors.DefaultSelector()
    selector.register(events_r, selectors.EVENT_READ, "events")
    selector.register(out_r, selectors.EVENT_READ, "output")
    if child.pidfd is not None:
        selector.register(child.pidfd, selectors.EVENT_READ, "exit")
    tick = limits.seconds if child.pidfd is not None else 0.05  # without a pidfd, look every 50 ms
    pending, output = b"", bytearray()
    try:
        while log.exit_code is None:
            left = deadline - time.monotonic()
            if left <= 0:
                log.ended = (f"this test did not finish within {limits.seconds:g} s, the limit for the whole check, and "
                             f"was stopped: a slow loop ({ENV_SECONDS} sets a longer limit), or one that never returns "
                             "or catches the time limit's exception")
                return
            ready = {key.data for key, _ in selector.select(min(left, tick))}
            if "output" in ready and not _read(out_r, output):
                selector.unregister(out_r)
            closed = False
            if "events" in ready:
                chunk = _read(events_r, None)
                pending, closed = _lines(pending + chunk, log), not chunk
            gone = closed or "exit" in ready or (child.pidfd is None and child.poll() is not None)
            if log.exit_code is None and gone:
                # the child is gone (or closed its end of the pipe): what it wrote before it went is still to read
                while chunk := _read(events_r, None, wait=False):
                    pending = _lines(pending + chunk, log)
                _lines(pending + b"\n", log)
                if log.exit_code is None:
                    log.ended = ended(child.wait(1.0), limits)
                return
    finally:
        selector.close()
        while _read(out_r, output, wait=False):
            pass
        log.output = bytes(output[:OUTPUT_KEPT]).decode("utf-8", "replace")


def _lines(data: bytes, log: SessionLog) -> bytes:
    """Every whole line of `data` read into the log; the unfinished rest returned."""
    *lines, rest = data.split(b"\n")
    for line in lines:
        try:
            message = json.loads(line)
            if isinstance(message, dict):
                log.read(message)
        except (TypeError, ValueError):  # not ours (something else wrote to the pipe): ignored
            pass
    return rest


def _read(fd: int, into: bytearray | None, wait: bool = True) -> bytes:
    """One read (without `wait`, only if something is there now); `into` keeps the first OUTPUT_KEPT bytes."""
    if not wait:
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            if not selector.select(0):
                return b""
    return read_kept(fd, into)


def few_arenas() -> None:
    """At most two glibc malloc arenas: each thread otherwise reserves one (64 MB of address space), and under the
    session's RLIMIT_AS a loop that leaks a thread per run would run out after about 14 (plain pytest forks
    each run, so its threads die with it). Nothing to do where there is no glibc."""
    try:
        import ctypes  # only the session child needs it

        ctypes.CDLL(None).mallopt(-8, 2)  # M_ARENA_MAX
    except (ImportError, OSError, AttributeError):
        pass


def ended(exitcode: int | None, limits: CheckLimits) -> str:
    """Why the checking process ended before pytest finished, said for the test that was running."""
    if exitcode is None:
        return "the checking process closed its report pipe and went on; it was stopped"
    if exitcode == BROKE:
        return ("the check's own machinery failed while this test ran: your code broke something the check needs "
                "(closed its files, replaced print, json or sys.stdout), or it ran out of memory "
                f"(the check's limit is {limits.memory_mb:,} MB)")
    if exitcode >= 0:
        return (f"the checking process ended while this test ran (exit code {exitcode}): your code called "
                f"os._exit({exitcode}), or broke something the check needs (closed its files, replaced print or json)")
    if -exitcode == getattr(signal, "SIGXCPU", None):
        return f"the checking process used more than {int(limits.seconds) + 2} s of CPU and was stopped"
    if -exitcode == signal.SIGKILL:
        return (f"the checking process was killed by signal SIGKILL (out of memory? the check's limit is "
                f"{limits.memory_mb:,} MB)")
    return f"the checking process was killed by signal {killed_by(exitcode)}"
