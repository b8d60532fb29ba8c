"""Every exercise test fails on its stub, and every classic wrong answer is caught by a named test.

The exercise tests run in a subprocess against the stub in exercises/ and the red-flag files in
tests/red_flags/, all in one go (`--target a,b,c`), and the JUnit report is read back.
"""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RED = Path(__file__).resolve().parent / "red_flags"

# exercise test file -> {red-flag file: (test that must catch it, text its failure must contain)}
CAUGHT_BY = {
    "test_ex01_react_loop.py": {
        "ex01_forgets_assistant_message.py": (
            "test_appends_the_assistant_tool_call_message_before_the_results",
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."),
        "ex01_while_true.py": ("test_repeat_scenario_stops_at_the_step_limit", "the step limit was 8"),
        "ex01_first_call_only.py": ("test_answers_every_parallel_tool_call", "did not have response messages"),
        "ex01_max_steps_string.py": ("test_repeat_scenario_stops_at_the_step_limit", "not a RunResult"),
        "ex01_raises_tool_errors.py": ("test_a_failing_tool_does_not_crash_the_loop", "your loop raised"),
        "ex01_step_per_tool_call.py": ("test_one_model_request_per_step", "one step is one model request"),
    },
}


def run_against(test_file: str, targets: list[str], tmp_path: Path) -> dict[tuple[str, str], tuple[bool, str]]:
    report = tmp_path / "report.xml"
    subprocess.run([sys.executable, "-m", "pytest", str(ROOT / "tests" / test_file), "-q", "-p", "no:cacheprovider", "-p", "no:nbval", "-p", "no:hypothesispytest",
                    "--target", ",".join(targets), f"--junitxml={report}", "-o", "junit_family=xunit1"],
                   cwd=ROOT, capture_output=True, text=True, timeout=120)
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


@pytest.mark.parametrize("test_file", sorted(CAUGHT_BY))
def test_stub_fails_every_test_and_red_flags_are_caught(test_file, tmp_path):
    exercise = test_file.removeprefix("test_").removesuffix(".py")
    flags = CAUGHT_BY[test_file]
    targets = [str(ROOT / "exercises" / f"{exercise}.py")] + [str(RED / f) for f in flags]
    outcomes = run_against(test_file, targets, tmp_path)
    stub = Path(targets[0]).stem
    stub_results = {name: ok for (name, target), (ok, _) in outcomes.items() if target == stub}
    assert stub_results, f"no test ran against the stub of {exercise}"
    passing = sorted(name for name, ok in stub_results.items() if ok)
    assert not passing, f"these {exercise} tests pass against the unimplemented stub: {passing}"
    for flag, (test_name, text) in flags.items():
        ok, failure = outcomes.get((test_name, Path(flag).stem), (True, ""))
        assert not ok, f"red flag {flag} is not caught by {test_name}"
        assert text in failure, f"{test_name} catches {flag} but its message lacks {text!r}:\n{failure[:600]}"
