"""The pytest plugin in `loopkit check`'s session child: one JSON line per event to the parent, one outcome per test.

reference/sandbox/check_session.py forks the child and reads what this writes. Each test's outcome is sent once,
after all of its phases: a test whose setup or teardown failed fails once, with that failure. An explanation
is cut to EXPLANATION_KEPT characters and its control characters escaped before it is sent, so that a huge
or crafted exception message costs no more than under pytest and cannot draw lines of its own.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any, Callable, Iterator

from pluggy import HookimplMarker  # pytest's own marker, without importing pytest (check_session imports it late)

from .inline import SESSION, Session
from .inline_state import ProcessState

EXPLANATION_KEPT = 4000
_DUMPS = json.dumps  # the kit's own, taken at import: a learner's patch of json.dumps does not reach the report
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
hookimpl = HookimplMarker("pytest")


class Reporter:
    """The pytest plugin in the child: one JSON line per event, written straight to the pipe; and the rerun.

    Every run of a test is made in this one process, so a loop that keeps state in its module (a cache, a
    mutable default) carries it from one run to the next, where the fork sandbox starts each run afresh. A
    test that failed after two runs or more is therefore run again with a fork per run (the session's
    `fork_per_run`, between two tests, in the main thread), and that verdict is the one kept: the outcomes
    are the ones plain pytest gives. A test that fails at its first run needs no second one.

    A test may also call the learner's code itself, in this process: whatever that changes process-wide (a
    lower recursion limit, fds 0 to 2, the working directory...) is put back after each phase of each test,
    before pytest makes its report, as after a run (reference/sandbox/inline_state.py). Else pytest's own
    machinery, and every later test, would run in what the learner's code left."""

    def __init__(self, tell: Callable[[dict[str, Any]], None], explain: Callable[[Any], str], runs_fd: int | None,
                 protocol: Callable[..., list[Any]], std_fds: list[int] | None = None):
        self.tell, self.explain, self.runs_fd, self.protocol = tell, explain, runs_fd, protocol
        self.std_fds = std_fds  # the session's duplicates of fds 0 to 2, made before pytest started

    def send(self, **message: Any) -> None:
        self.tell(message)

    def runs(self) -> int:
        """The runs made since the last look (one byte each); none counted outside a session."""
        try:
            return len(os.read(self.runs_fd, 1 << 16)) if self.runs_fd is not None else 0
        except BlockingIOError:
            return 0

    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> bool:
        """pytest's own protocol (registered after it, this plugin is asked first), plus the rerun."""
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        self.runs()
        reports = self.protocol(item, nextitem=nextitem, log=False)
        if any(r.failed for r in reports) and self.runs() >= 2:
            inline = os.environ.get(SESSION)
            if inline:
                os.environ[SESSION] = Session.decode(inline).forking().encode()
            try:
                reports = self.protocol(item, nextitem=nextitem, log=False)
            finally:
                if inline is not None:
                    os.environ[SESSION] = inline
        for report in reports:
            item.ihook.pytest_runtest_logreport(report=report)
        told = verdict(reports, self.explain)
        if told is not None:
            self.send(outcome=[test_name(item.nodeid), *told])
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def _kept(self) -> Iterator[None]:
        state = ProcessState(self.std_fds)
        state.note()
        try:
            yield
        finally:
            state.put_back()

    @hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: Any) -> Iterator[None]:
        yield from self._kept()

    @hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item: Any) -> Iterator[None]:
        yield from self._kept()

    @hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> Iterator[None]:
        yield from self._kept()

    def pytest_internalerror(self, excrepr: Any, excinfo: Any) -> None:
        """pytest's own machinery failed (its traceback goes to a terminal the learner's code may have closed):
        the parent is told why, and fails the test that was running with it."""
        self.send(internal=tidy(excinfo.exconly().strip().splitlines()[-1][:300]))

    def pytest_collection_finish(self, session: Any) -> None:
        self.send(collected=[test_name(item.nodeid) for item in session.items])

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self.send(start=test_name(nodeid))

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self.send(finish=test_name(nodeid))

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        self.send(interrupted=excinfo.typename)


def verdict(reports: list[Any], explain: Callable[[Any], str]) -> tuple[bool, str] | None:
    """One test's outcome from the reports of its phases: (passed, why); None for a test that was skipped."""
    failed = next((r for r in reports if r.failed), None)
    if failed is None:
        return (True, "") if any(r.when == "call" for r in reports) else None
    why = tidy(explain(failed))
    if failed.when == "setup":
        why += "\n(this failed in the test's setup, before the test itself ran)"
    elif failed.when == "teardown":
        passed = any(r.when == "call" and r.passed for r in reports)
        why += f"\n(this failed in the test's teardown, after the test itself {'passed' if passed else 'ran'})"
    return False, why


def tidy(text: str) -> str:
    """At most EXPLANATION_KEPT characters, control characters (ANSI escapes, carriage returns) escaped."""
    if len(text) > EXPLANATION_KEPT:
        text = f"{text[:EXPLANATION_KEPT]}… {len(text) - EXPLANATION_KEPT:,} more characters"
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def test_name(nodeid: str) -> str:
    return nodeid.split("::")[-1]


def writer(fd: int) -> Callable[[dict[str, Any]], None]:
    """Each message as one JSON line, written straight to the pipe (no buffer to lose if the process dies)."""
    write_to = os.write  # the kit's own, as json.dumps: taken before the learner's code runs

    def write(message: dict[str, Any]) -> None:
        data = (_DUMPS(message) + "\n").encode()
        while data:
            data = data[write_to(fd, data):]
    return write
