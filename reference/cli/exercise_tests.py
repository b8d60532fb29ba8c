"""Run one exercise's tests in this process and keep, for each test, its name and its explanation.

`loopkit check` prints every outcome; `loopkit hint` only needs the first failure. The tests live in
tests/ of a clone of the kit (`pip install -e .`), not in the installed package.
"""
from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..lessons import Lesson

ROOT = Path(__file__).resolve().parent.parent.parent
# Plugins the exercise tests do not need cost start-up time: installed ones (nbval, anyio, platformdirs,
# hypothesis...) are not loaded at all (PYTEST_DISABLE_PLUGIN_AUTOLOAD), and these built-in ones are off.
QUIET = ["-q", "--no-header", "--tb=no", "-rN", "-W", "ignore", "-p", "no:cacheprovider", "-p", "no:doctest",
         "-p", "no:junitxml", "-p", "no:pastebin"]


@dataclass(frozen=True)
class Outcome:
    test: str  # the test's name with its parameters, e.g. test_happy_path_completes_with_the_answer[exercises]
    passed: bool
    explanation: str = ""  # why it failed, in the test's own words

    @property
    def function(self) -> str:
        """The test function's name, without the parameters."""
        return self.test.split("[", 1)[0]


@dataclass(frozen=True)
class TestRun:
    outcomes: list[Outcome]
    exit_code: int  # pytest's: 0 all passed, 1 some failed, anything else a usage or collection error
    output: str  # what pytest printed; shown only when it could not run the tests

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.passed]


class _Collector:
    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.when == "call" or report.outcome == "failed":
            name = report.nodeid.split("::")[-1]
            self.outcomes.append(Outcome(name, report.passed, explanation(report) if report.failed else ""))


def test_file(lesson: Lesson) -> Path:
    path = ROOT / lesson.test_file
    if not path.exists():
        raise SystemExit(f"loopkit: {path} not found; run `loopkit {lesson.exercise}` from a clone of the kit "
                         "installed with `pip install -e .`")
    return path


def run_tests(lesson: Lesson, target: str, first_failure_only: bool = False) -> TestRun:
    """The lesson's tests against `target` (exercises or solutions); with first_failure_only, stop there."""
    import pytest  # heavy, and only `check` and `hint` need it

    collector = _Collector()
    args = [str(test_file(lesson)), f"--target={target}", *QUIET] + (["-x"] if first_failure_only else [])
    autoload = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with contextlib.redirect_stdout(io.StringIO()) as printed:  # the outcomes say it all
            code = pytest.main(args, plugins=[collector])
    finally:
        if autoload is None:
            del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = autoload
    return TestRun(collector.outcomes, int(code), printed.getvalue())


def explanation(report: Any) -> str:
    """The failure in the test's words: the whole assertion message, or the exception's type and text.

    pytest's own introspection (`assert ...` and its `where` lines) is dropped when the test gave a
    message; the traceback is never shown."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1]
    for prefix in ("AssertionError: ", "Failed: "):
        text = text.removeprefix(prefix)
    lines = text.rstrip().splitlines()
    introspection = next((i for i, line in enumerate(lines) if line.startswith("assert ")), None)
    if introspection:  # a message, then pytest's rewriting of the assert: keep the message
        lines = lines[:introspection]
    return "\n".join(lines).strip() or "failed"
