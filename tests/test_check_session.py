"""`loopkit check` runs an exercise's tests in one sandboxed child, every run of the loop in process.

Two promises (docs/grading.md, "loopkit check"): it gives the outcomes plain pytest gives (where every run is
forked), and nothing the learner's loop does (spin, sleep, hang in C code, exit, interrupt, os._exit, eat
memory, leave a thread, swallow every exception) costs the outcomes already reached, hangs the check past its
limit, or shows a traceback.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reference.sandbox.check_session import CheckLimits
from reference.cli.exercise_tests import run_tests
from reference.lessons import EXERCISES, lesson_for

ROOT = Path(__file__).resolve().parent.parent
RED = ROOT / "tests" / "red_flags"


def plain_pytest(lessons, targets: list[str], report: Path) -> subprocess.Popen:
    """An ordinary pytest run (a fork per run of the loop) of the lessons' tests, writing a JUnit report.

    Without the installed plugins, as the check runs (hypothesis, nbval... only cost start-up time here)."""
    return subprocess.Popen([sys.executable, "-m", "pytest", *(str(ROOT / lesson.test_file) for lesson in lessons),
                             "-q", "-p", "no:cacheprovider", "--target", ",".join(targets), f"--junitxml={report}"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "LOOPKIT_ONLY": "{}", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})


def read_report(report: Path) -> dict[str, dict[str, bool]]:
    """test file stem -> test id -> passed."""
    outcomes: dict[str, dict[str, bool]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        ok = case.find("failure") is None and case.find("error") is None
        tests = outcomes.setdefault(case.get("classname").rsplit(".", 1)[-1], {})
        tests[case.get("name")] = tests.get(case.get("name"), True) and ok
    return outcomes


def checked(run) -> dict[str, bool]:
    outcomes: dict[str, bool] = {}
    for o in run.outcomes:
        outcomes[o.test] = outcomes.get(o.test, True) and o.passed
    return outcomes


def compare(lessons, targets: list[str], tmp_path: Path) -> dict[str, list[str]]:
    """exercise -> the tests whose outcome differs between plain pytest and `loopkit check`'s run_tests
    (both at once: pytest in a subprocess while the checks run here)."""
    report = tmp_path / "plain.xml"
    proc = plain_pytest(lessons, targets, report)
    try:
        check = {lesson.exercise: checked(run_tests(lesson, ",".join(targets))) for lesson in lessons}
        proc.wait(timeout=900)
    finally:
        proc.kill()
    plain = read_report(report)
    found = {}
    for lesson in lessons:
        theirs, ours = plain.get(Path(lesson.test_file).stem, {}), check[lesson.exercise]
        assert theirs, f"plain pytest ran no test of {lesson.test_file}"
        found[lesson.exercise] = [f"{test}: pytest {'passes' if theirs.get(test) else 'fails'}, check "
                                  f"{'passes' if ours.get(test) else 'fails'}"
                                  for test in sorted({*theirs, *ours}) if theirs.get(test) != ours.get(test)]
    return found


def collected(lessons, targets: list[str]) -> dict[str, set[str]]:
    """test file stem -> the test ids plain pytest collects for these targets (collected, not run)."""
    done = subprocess.run([sys.executable, "-m", "pytest", *(str(ROOT / lesson.test_file) for lesson in lessons),
                           "--collect-only", "-p", "no:cacheprovider", "--target", ",".join(targets)],  # -q: addopts
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "LOOPKIT_ONLY": "{}", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ids: dict[str, set[str]] = {}
    for line in done.stdout.splitlines():
        path, sep, test = line.partition("::")
        if sep:
            ids.setdefault(Path(path).stem, set()).add(test)
    return ids


def solution_and_stub(lesson) -> list[str]:
    """The tests whose outcome differs between plain pytest and the check, for the solution and the stub.

    What plain pytest gives there is known without running every test once more: each exercise test passes on the
    solution (the suite runs them so: tests/test_exNN_*.py) and fails on the stub (tests/test_red_flags.py runs
    them so, and fails otherwise). Plain pytest only collects here, for the test ids; the check runs them all.
    Red-flag files have no such known outcome: `test_..._for_every_red_flag` runs both (`slow`)."""
    plain = collected([lesson], ["solutions", "exercises"])
    ours = checked(run_tests(lesson, "solutions,exercises"))
    theirs = {test: "solutions" in re.split(r"[\[\]-]", test) for test in plain.get(Path(lesson.test_file).stem, ())}
    assert theirs and all(("exercises" in re.split(r"[\[\]-]", t)) != ok for t, ok in theirs.items()), theirs
    return [f"{test}: pytest {'passes' if theirs.get(test) else 'fails'}, check {'passes' if ours.get(test) else 'fails'}"
            for test in sorted({*theirs, *ours}) if theirs.get(test) != ours.get(test)]


# One lesson in the default suite: the same session and fork-per-run machinery runs every lesson's tests, and ex01's
# hold the cases it must judge again with a fork per run. The other lessons' parity is `slow` (seconds each).
PARITY = [pytest.param(lesson, id=lesson.exercise, marks=[] if lesson.exercise == "ex01" else [pytest.mark.slow])
          for lesson in EXERCISES]


@pytest.mark.parametrize("lesson", PARITY)
def test_check_gives_the_outcomes_plain_pytest_gives_for_the_solution_and_the_stub(lesson):
    assert not solution_and_stub(lesson)


@pytest.mark.slow
@pytest.mark.parametrize("lesson", EXERCISES, ids=lambda lesson: lesson.exercise)
def test_check_gives_the_outcomes_plain_pytest_gives_for_every_red_flag(lesson, tmp_path):
    """Every test against every wrong answer, not only the test named to catch it (minutes: `pytest -m slow`)."""
    flags = sorted(str(p) for p in RED.glob(f"{lesson.exercise}_*.py") if not p.name.endswith("_caught.py"))
    assert flags and not compare([lesson], flags, tmp_path)[lesson.exercise]


def test_a_test_that_fails_after_several_runs_is_judged_with_a_fork_per_run(tmp_path):
    """A loop that keeps state in its module fails more tests when all runs share one process: the check runs
    those tests again the way plain pytest does, so both fail only the test that names the leak."""
    run = run_tests(lesson_for("ex01"), str(RED / "ex01_history_default.py"))
    assert [o.function for o in run.failed] == ["test_two_runs_in_one_process_share_nothing"], run.failed
    assert "state leaks" in run.failed[0].explanation


# ---------------------------------------------------------------- hostile loops

# What each case decides comes from what the loop does, never from how busy the machine is. A run that never
# returns meets the run limit (RUN_LIMIT) whatever the load; every other limit is a guard against a hang, far above
# what the ex01 tests take. Only the cases that end at the whole check's limit (WHOLE_CHECK) depend on the tests
# before the hostile one finishing within it: those wait out a limit 20 times what those tests take, and are `slow`.
RUN_LIMIT = CheckLimits(seconds=300, memory_mb=256, run_seconds=2)
GUARD = CheckLimits(seconds=300, memory_mb=256, run_seconds=60)
WHOLE_CHECK = CheckLimits(seconds=20, memory_mb=256, run_seconds=60)
SOLVED = (ROOT / "solutions" / "ex01_react_loop.py").read_text(encoding="utf-8").replace("def react_loop(",
                                                                                         "def _solved(")
TRIGGER = {  # when the hostile line runs: in one scenario (through run_candidate), or when called directly
    "run": ("max_steps=8", 'episode.scenario.name == "tool-failures"'),  # test_a_failing_tool_does_not_crash_the_loop
    "direct": ("max_steps=None", "max_steps is None"),  # test_the_default_step_limit_is_eight calls react_loop(episode)
}
RUN_TEST = "test_a_failing_tool_does_not_crash_the_loop"
DIRECT_TEST = "test_the_default_step_limit_is_eight"
# name -> (what the loop does, where, the test that fails, what its explanation says, do later tests run)
HOSTILE = {
    "spins": ("while True:\n            pass", "run", RUN_TEST, "ran past the 2 s time limit", True),
    "sleeps": ("time.sleep(3600)", "run", RUN_TEST, "ran past the 2 s time limit (0 model calls by then)", True),
    "exits": ("sys.exit(3)", "run", RUN_TEST, "your loop called sys.exit(3)", True),
    "interrupts": ("raise KeyboardInterrupt", "run", RUN_TEST, "your loop raised KeyboardInterrupt", True),
    "os_exit": ("os._exit(3)", "run", RUN_TEST, "ended while this test ran (exit code 3): your code called os._exit(3)",
                False),
    "allocates_10_gb": ("chunks = [bytearray(100 * 1024 ** 2) for _ in range(100)]", "run", RUN_TEST,
                        "your loop exceeded the memory limit (256 MB)", True),
    "leaves_a_thread": ("threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()", "run", None, "",
                        True),
    "swallows_everything": ("while True:\n            try:\n                time.sleep(3600)\n"
                            "            except BaseException:\n                pass", "run", RUN_TEST,
                            "did not finish within 20 s, the limit for the whole check", False),
    "hangs_in_c_code": ("sum(itertools.repeat(1, 10 ** 12))", "run", RUN_TEST,  # never checks for signals
                        "did not finish within 20 s, the limit for the whole check", False),
    "sleeps_when_called_directly": ("time.sleep(3600)", "direct", DIRECT_TEST,
                                    "did not finish within 20 s, the limit for the whole check", False),
    "interrupts_when_called_directly": ("raise KeyboardInterrupt", "direct", DIRECT_TEST,
                                        "your code raised KeyboardInterrupt, which stops pytest", False),
    "exits_when_called_directly": ("sys.exit(4)", "direct", DIRECT_TEST, "your code called sys.exit(4)", True),
    "allocates_when_called_directly": ("chunks = [bytearray(100 * 1024 ** 2) for _ in range(100)]", "direct",
                                       DIRECT_TEST, "used more than the check's memory limit (256 MB)", True),
}


def hostile_file(tmp_path: Path, name: str) -> Path:
    """The solution, but the loop does the hostile thing at one place in the ex01 tests."""
    line, where, _, _, _ = HOSTILE[name]
    default, condition = TRIGGER[where]
    path = tmp_path / f"{name}.py"
    path.write_text(f"{SOLVED}\n\nimport itertools, os, sys, threading, time\n\n\ndef react_loop(episode, {default}):\n"
                    f"    if {condition}:\n        {line}\n"
                    "    return _solved(episode, 8 if max_steps is None else max_steps)\n", encoding="utf-8")
    return path


def limits_for(name: str) -> CheckLimits:
    says = HOSTILE[name][3]
    return WHOLE_CHECK if "the limit for the whole check" in says else RUN_LIMIT if "time limit" in says else GUARD


ENDS_AT_THE_WHOLE_CHECK_LIMIT = [name for name in HOSTILE if limits_for(name) is WHOLE_CHECK]
# A case whose limit and report a quicker case of the same kind already checks: `slow` (sleeping meets the run
# limit as spinning does; the memory limit is met in a scenario as when called directly).
REPEATS_A_QUICK_CASE = {"sleeps": "spins", "allocates_when_called_directly": "allocates_10_gb"}
CASES = [pytest.param(name, marks=pytest.mark.slow)
         if name in ENDS_AT_THE_WHOLE_CHECK_LIMIT or name in REPEATS_A_QUICK_CASE else name for name in HOSTILE]


@pytest.mark.parametrize("name", CASES)
def test_a_hostile_loop_gets_a_clear_report_and_the_finished_outcomes_are_kept(name, tmp_path):
    _, _, failing, says, later_run = HOSTILE[name]
    limits = limits_for(name)
    started = time.monotonic()
    run = run_tests(lesson_for("ex01"), str(hostile_file(tmp_path, name)), limits=limits)
    took = time.monotonic() - started
    # the promise is the limit plus about 1 s (docs/grading.md); this bound only tells a hang from a busy machine
    assert took < limits.seconds + 120, f"{name}: the check took {took:.1f} s (its limit: {limits.seconds:g} s)"
    failed = [o.function for o in run.failed]
    assert failed == ([failing] if failing else []), (name, run.failed)
    if failing:
        assert says in run.failed[0].explanation, (name, run.failed[0].explanation)
    assert not any("Traceback" in o.explanation or 'File "' in o.explanation for o in run.outcomes), run.outcomes
    names = [o.function for o in run.outcomes]
    position = names.index(failing) if failing else len(names)
    assert all(o.passed and o.ran for o in run.outcomes[:position]), f"{name}: the tests before it all passed"
    after = run.outcomes[position + 1:]
    if later_run:
        assert all(o.passed and o.ran for o in after), (name, after)
    else:  # the check ended there: the rest are listed, as not run
        assert after and all(not o.ran for o in after), (name, after)
        assert run.stopped and run.exit_code == 1, run


def test_the_limits_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("LOOPKIT_CHECK_SECONDS", "7.5")
    monkeypatch.setenv("LOOPKIT_CHECK_MEMORY_MB", "300")
    monkeypatch.setenv("LOOPKIT_CHECK_RUN_SECONDS", "2")
    assert CheckLimits.from_env() == CheckLimits(7.5, 300, 2.0)
    monkeypatch.delenv("LOOPKIT_CHECK_RUN_SECONDS")
    assert CheckLimits.from_env().run_seconds is None


def test_without_fork_the_tests_run_in_this_process(monkeypatch):
    """Where os.fork does not exist (Windows), check runs pytest here, as it did before it had a session."""
    monkeypatch.delattr(os, "fork")
    run = run_tests(lesson_for("ex07"), "solutions")
    assert run.outcomes and not run.failed and run.exit_code == 0, run
