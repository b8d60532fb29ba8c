"""Every exercise test fails on its stub, and every classic wrong answer is caught by a named test.

The exercise tests run in a subprocess against the stub in exercises/ and the red-flag files in
tests/red_flags/, all in one go (`--target a,b,c`), and the JUnit report is read back.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reference.lessons import EXERCISES

ROOT = Path(__file__).resolve().parent.parent
RED = Path(__file__).resolve().parent / "red_flags"


def red_flags() -> dict[str, dict[str, tuple[str, str]]]:
    """exercise test file -> {red-flag file: (test that must catch it, text its failure must contain)}.

    Each exercise keeps its own table in tests/red_flags/exNN_caught.py."""
    tables = {}
    for lesson in EXERCISES:
        path = RED / f"{lesson.exercise}_caught.py"
        if path.exists():
            namespace: dict = {}
            exec(path.read_text(encoding="utf-8"), namespace)
            tables[Path(lesson.test_file).name] = namespace["CAUGHT_BY"]
    return tables


CAUGHT_BY = red_flags()


def run_against(test_file: str, targets: list[str], tmp_path: Path,
                only: dict[str, list[str]] | None = None) -> dict[tuple[str, str], tuple[bool, str]]:
    report = tmp_path / "report.xml"
    # without the installed plugins, as `loopkit check` runs these tests: nbval alone costs seconds of CPU at start-up
    env = {**os.environ, "LOOPKIT_ONLY": json.dumps(only or {}), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    subprocess.run([sys.executable, "-m", "pytest", str(ROOT / "tests" / test_file), "-q", "-p", "no:cacheprovider",
                    "--target", ",".join(targets), f"--junitxml={report}", "-o", "junit_family=xunit1"],
                   cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name, _, target = case.get("name").partition("[")
        target = target.rstrip("]").split("-")[0]
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        text = "" if failure is None else (failure.get("message", "") + "\n" + (failure.text or ""))
        outcomes.setdefault((name, target), []).append((failure is None, text))
    return {k: (all(ok for ok, _ in v), "\n".join(t for _, t in v)) for k, v in outcomes.items()}


# Two lessons in the default suite, the first loop and the design lesson: the same machinery (one pytest child, its
# JUnit report read back) judges every lesson. The other seven are `slow` (a pytest child each, 3-5 s of CPU).
QUICK = ("ex01", "ex07")
LESSONS = [pytest.param(lesson, id=lesson.module, marks=[] if lesson.exercise in QUICK else [pytest.mark.slow])
           for lesson in EXERCISES]


@pytest.mark.parametrize("lesson", LESSONS)
def test_stub_fails_every_test_and_red_flags_are_caught(lesson, tmp_path):
    test_file, exercise = Path(lesson.test_file).name, lesson.module
    assert test_file in CAUGHT_BY, f"{lesson.test_file} has no red-flag table tests/red_flags/{lesson.exercise}_caught.py"
    assert (ROOT / "exercises" / f"{exercise}.py").exists(), f"{lesson.test_file} has no exercises/{exercise}.py"
    flags = CAUGHT_BY[test_file]
    targets = [str(ROOT / "exercises" / f"{exercise}.py")] + [str(RED / f) for f in flags]
    # the stub runs every test; each red flag only the test named to catch it
    outcomes = run_against(test_file, targets, tmp_path, {Path(f).stem: [t] for f, (t, _) in flags.items()})
    stub = Path(targets[0]).stem
    stub_results = {name: ok for (name, target), (ok, _) in outcomes.items() if target == stub}
    assert stub_results, f"no test ran against the stub of {exercise}"
    passing = sorted(name for name, ok in stub_results.items() if ok)
    assert not passing, f"these {exercise} tests pass against the unimplemented stub: {passing}"
    for flag, (test_name, text) in flags.items():
        ok, failure = outcomes.get((test_name, Path(flag).stem), (True, ""))
        assert not ok, f"red flag {flag} is not caught by {test_name}"
        assert text in failure, f"{test_name} catches {flag} but its message lacks {text!r}:\n{failure[:600]}"
