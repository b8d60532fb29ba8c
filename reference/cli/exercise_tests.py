"""Run one exercise's tests in a sandboxed child and keep, for each test, its name and its explanation.

`loopkit check` prints every outcome; `loopkit hint` only needs the first failure. The tests live in
tests/ of a clone of the kit (`pip install -e .`), not in the installed package. The session runs in
one forked child on a leash (reference/sandbox/check_session.py): whatever the learner's code does to it,
the finished outcomes are kept and the test that was running is failed with the reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..lessons import Lesson
from ..sandbox.check_session import CheckLimits, SessionLog, run_session

ROOT = Path(__file__).resolve().parent.parent.parent
# Plugins the exercise tests do not need cost start-up time: installed ones (nbval, anyio, platformdirs,
# hypothesis...) are not loaded at all (PYTEST_DISABLE_PLUGIN_AUTOLOAD, in the child), and these built-in ones
# are off.
# --capture=sys: what the code writes to fds 1 and 2 goes down the session's output pipe (the parent keeps 64 KB and
# drains the rest), not into a temporary file that pytest reads back into memory after each test.
QUIET = ["-q", "--no-header", "--tb=no", "-rN", "-W", "ignore", "--capture=sys", "-p", "no:cacheprovider",
         "-p", "no:doctest", "-p", "no:junitxml", "-p", "no:pastebin"]
PROGRESS = re.compile(r"^[.FEsxXp]+\s*(\[\s*\d+%\])?\s*$")  # pytest's progress lines, e.g. `..F.E   [ 40%]`


@dataclass(frozen=True)
class Outcome:
    test: str  # the test's name with its parameters, e.g. test_happy_path_completes_with_the_answer[exercises]
    passed: bool
    explanation: str = ""  # why it failed, in the test's own words
    ran: bool = True  # False: the check stopped before this test started

    @property
    def function(self) -> str:
        """The test function's name, without the parameters."""
        return self.test.split("[", 1)[0]


@dataclass(frozen=True)
class TestRun:
    outcomes: list[Outcome]
    exit_code: int  # pytest's: 0 all passed, 1 some failed, anything else a usage or collection error
    output: str  # what pytest printed; shown only when it could not run the tests
    stopped: str = ""  # why the check stopped before its tests were done ("" when it did not)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.ran and not o.passed]

    @property
    def not_run(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ran]


def test_file(lesson: Lesson) -> Path:
    path = ROOT / lesson.test_file
    if not path.exists():
        raise SystemExit(f"loopkit: {path} not found; run `loopkit {lesson.exercise}` from a clone of the kit "
                         "installed with `pip install -e .`")
    return path


def run_tests(lesson: Lesson, target: str, first_failure_only: bool = False, limits: CheckLimits | None = None,
              on_outcome: Callable[[Outcome], None] | None = None) -> TestRun:
    """The lesson's tests against `target` (exercises, solutions, or .py files, comma-separated) in one
    sandboxed child; with first_failure_only, stop there. `limits`: by default, from the environment.
    `on_outcome` is told of each test's outcome as it comes (the run's outcomes start with those)."""
    args = [str(test_file(lesson)), f"--target={target}", *QUIET] + (["-x"] if first_failure_only else [])
    limits = limits or CheckLimits.from_env()
    told = None if on_outcome is None else (lambda test, passed, why: on_outcome(Outcome(test, passed,
                                                                                          plainly(why, limits))))
    return test_run(run_session(args, explanation, limits, told), limits)


def test_run(log: SessionLog, limits: CheckLimits) -> TestRun:
    """The outcomes the session reported, one per test; if it ended early, the test it was running fails with the
    reason and the tests it never reached are listed as not run. pytest's own output is kept only when it could
    not run the tests (a usage or collection error), without its progress lines."""
    outcomes = _once([Outcome(test, passed, plainly(why, limits)) for test, passed, why in log.outcomes])
    why = log.ended or (f"your code raised {log.interrupted}, which stops pytest: the check ended here"
                        if log.interrupted else "") or broke_pytest(log)
    done = log.running is None and bool(outcomes) and {o.test for o in outcomes} >= set(log.collected)
    if done and not log.interrupted:  # it broke in pytest's wrap-up, after the last outcome: nothing is missing
        return TestRun(outcomes, 1 if any(not o.passed for o in outcomes) else 0, "")
    if not why:
        code = log.exit_code if log.exit_code is not None else 3
        return TestRun(outcomes, code, "" if code in (0, 1) else quiet(log.output))
    seen = {o.test for o in outcomes}
    running = log.running if log.running not in seen else None
    if running is not None:
        outcomes.append(Outcome(running, False, why))
    where = f" (the check stopped at {running})" if running else ""
    outcomes += [Outcome(test, False, f"did not run{where}", ran=False) for test in dict.fromkeys(log.collected)
                 if test not in seen and test != running]
    return TestRun(outcomes, 1 if outcomes else 3, "" if outcomes else f"{why}\n{quiet(log.output)}".strip(),
                   stopped=why)


def broke_pytest(log: SessionLog) -> str:
    """Why pytest ended with an internal error (exit code 3), said for the test that was running; "" otherwise."""
    if log.exit_code != 3 and not log.internal:
        return ""
    what = f" ({log.internal})" if log.internal else ""
    return (f"pytest's own machinery failed while this test ran{what}: your code changed something pytest needs "
            "(the recursion limit, its files, sys.stdout...), and the check ended here")


def _once(outcomes: list[Outcome]) -> list[Outcome]:
    """One outcome per test, in the order first reported: a failure wins over a pass. The reporter sends one per
    test; a second can only be a line the learner's code wrote into the pipe."""
    first: dict[str, Outcome] = {}
    for outcome in outcomes:
        if outcome.test not in first or (first[outcome.test].passed and not outcome.passed):
            first[outcome.test] = outcome
    return list(first.values())


def quiet(output: str) -> str:
    """pytest's output without its progress lines."""
    return "\n".join(line for line in output.splitlines() if not PROGRESS.match(line)).strip()


def plainly(why: str, limits: CheckLimits) -> str:
    """What pytest says of a test that ended on MemoryError or SystemExit (the test called the loop itself,
    not through run_candidate), said as run_candidate says it."""
    if why.startswith("MemoryError"):
        return f"it used more than the check's memory limit ({limits.memory_mb:,} MB): MemoryError"
    if why.startswith("SystemExit"):
        code = why.removeprefix("SystemExit").removeprefix(":").strip()
        return f"your code called sys.exit({code})"
    return why


def explanation(report: Any) -> str:
    """The failure in the test's words: the whole assertion message, or the exception's type and text.

    pytest's own introspection (`assert ...` and its `where` lines) is dropped when the test gave a
    message; the traceback is never shown."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1]
    for prefix in ("AssertionError: ", "Failed: "):
        text = text.removeprefix(prefix)
    text = text.replace("  Consider using `-s`.", " (input()? the check has no one to answer it)")
    lines = text.rstrip().splitlines()
    introspection = next((i for i, line in enumerate(lines) if line.startswith("assert ")), None)
    if introspection:  # a message, then pytest's rewriting of the assert: keep the message
        lines = lines[:introspection]
    return "\n".join(lines).strip() or "failed"
