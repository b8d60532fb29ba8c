"""`loopkit check` against plausible and hostile learner code that once broke its report (docs/grading.md,
"`loopkit check`"): floods of output, leaked threads, process-wide state changed by a run, its own machinery
broken, bad limits in the environment, crafted explanations, processes that leave the session's group.

None of these cases ends at a time limit: the limits here are guards against a hang, far above what the ex01 tests
take however busy the machine is, so that what each test decides never depends on the machine's load.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from reference.sandbox.check_reporter import EXPLANATION_KEPT, tidy, verdict
from reference.sandbox.check_session import CheckLimits, LimitsRefused
from reference.cli.exercise_tests import run_tests
from reference.cli.main import main
from reference.lessons import lesson_for
from reference.sandbox.grading import run_candidate
from reference.sandbox.inline import SESSION, Session
from reference.sandbox.inline_state import same_file

ROOT = Path(__file__).resolve().parent.parent
LIMITS = CheckLimits(seconds=300, memory_mb=512, run_seconds=60)
SOLVED = (ROOT / "solutions" / "ex01_react_loop.py").read_text(encoding="utf-8").replace("def react_loop(",
                                                                                         "def _solved(")


def every_run(tmp_path: Path, name: str, before: str = "", after: str = "") -> Path:
    """The ex01 solution, doing something at the start and the end of every call."""
    path = tmp_path / f"{name}.py"
    body = textwrap.indent(textwrap.dedent(before), "    ")
    tail = textwrap.indent(textwrap.dedent(after), "    ")
    path.write_text(f"{SOLVED}\n\nimport os, sys, threading, warnings\n\n\ndef react_loop(episode, max_steps=8):\n"
                    f"{body}\n    result = _solved(episode, max_steps)\n{tail}\n    return result\n", encoding="utf-8")
    return path


def ex01_tests() -> int:
    """How many tests exercise 1 has (its functions, its parametrized cases counted), read from its file."""
    import ast
    tree = ast.parse((ROOT / "tests" / "test_ex01_react_loop.py").read_text(encoding="utf-8"))
    count = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            marks = [d for d in node.decorator_list if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "parametrize"]
            count += len(marks[0].args[1].elts) if marks else 1
    return count


def one_per_test(run) -> None:
    tests = [o.test for o in run.outcomes]
    assert len(tests) == len(set(tests)) == ex01_tests(), tests


def test_a_loop_that_prints_megabytes_per_run_passes_as_under_pytest(tmp_path):
    """Its output is kept as the fork sandbox keeps it (64 KB a run), never piled up in pytest's capture."""
    path = every_run(tmp_path, "prints", 'print("x" * 3_000_000)\nos.write(2, b"y" * 1_000_000)')
    run = run_tests(lesson_for("ex01"), str(path), limits=CheckLimits(seconds=300, memory_mb=256, run_seconds=60))
    one_per_test(run)
    assert not run.failed and run.exit_code == 0 and not run.output, run


def test_a_loop_that_closes_stdout_fails_once_per_test_and_the_totals_count_tests(tmp_path):
    path = every_run(tmp_path, "closes", after="sys.stdout.close()\nsys.stderr.close()")
    run = run_tests(lesson_for("ex01"), str(path), limits=LIMITS)
    one_per_test(run)
    assert not run.output and not run.stopped, run  # no raw pytest output, no stray "exit code" line


def test_a_failed_teardown_after_a_passing_call_is_one_failure_that_says_so():
    def report(when, ok, text=""):
        return SimpleNamespace(when=when, failed=not ok, passed=ok, longrepr=text)

    passed, why = verdict([report("setup", True), report("call", True), report("teardown", False, "boom")],
                          lambda r: r.longrepr)
    assert not passed and why.startswith("boom") and "teardown, after the test itself passed" in why
    assert verdict([report("setup", False, "no fixture")], lambda r: r.longrepr)[1].endswith(
        "(this failed in the test's setup, before the test itself ran)")
    assert verdict([report("setup", True), report("call", True), report("teardown", True)], str) == (True, "")


def test_a_thread_left_running_by_every_run_does_not_exhaust_the_session(tmp_path):
    """A forgotten threading.Timer per run: plain pytest forks each run, so the threads die with it; the session
    keeps them all, at 1 MB of stack and no malloc arena of their own each. About 200 are alive at once when the
    runs are quick, so at the check's own memory limit (1,024 MB) they fit with room to spare, where 8 MB stacks
    or an arena each (64 MB) would not; at 512 MB they sat at its edge beside the session's own growth."""
    path = every_run(tmp_path, "timers", "threading.Timer(30.0, lambda: None).start()")
    run = run_tests(lesson_for("ex01"), str(path), limits=CheckLimits(seconds=300, memory_mb=CheckLimits.memory_mb,
                                                                        run_seconds=60))
    one_per_test(run)
    assert not run.failed, run.failed


STATE_CHANGES = """\
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(depth + 20)
    warnings.simplefilter("error")
    os.chdir("/")
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdin = sys.stdout = None
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    os.close(0)
"""


def test_process_wide_state_a_run_changes_is_put_back_before_the_next_test(tmp_path):
    """What the fork sandbox throws away with the run's process: the recursion limit, warnings filters, the
    streams, fds 0 to 2, signal handlers, the working directory. Whoever ran the code (a run in the session, or
    test_the_default_step_limit_is_eight calling it itself), the next phase finds the process as it was, so
    every test passes, once. The recursion limit is set just above the depth the code runs at, however deep the
    session's stack is: left in place, it breaks the next test's runs and pytest's own report-making."""
    path = every_run(tmp_path, "state", after=STATE_CHANGES)
    run = run_tests(lesson_for("ex01"), str(path), limits=LIMITS)
    one_per_test(run)
    assert not run.failed and run.exit_code == 0 and not run.output, run


def test_a_run_made_in_process_outside_a_session_puts_fds_0_to_2_back(tmp_path):
    """As a test judged again with a fork per run makes its `sandbox="in-process"` runs: no session's duplicates of
    fds 0 to 2 to put back from, so the run's own."""
    path = every_run(tmp_path, "state", after=STATE_CHANGES)
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    limit, cwd = sys.getrecursionlimit(), os.getcwd()
    try:
        attempt = run_candidate(f"{path}::react_loop", "happy-path", sandbox="in-process")
        after = [same_file(fd, copy) for fd, copy in zip((0, 1, 2), saved)]
    finally:
        for fd, copy in zip((0, 1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
    assert attempt.error is None, attempt.story()
    assert after == [True, True, True] and (sys.getrecursionlimit(), os.getcwd()) == (limit, cwd)


def test_a_loop_that_breaks_pytest_itself_fails_the_running_test_with_the_reason(tmp_path):
    """pytest's INTERNALERROR is written to fd 1, which this loop points at /dev/null: the reason still reaches the
    report, the test that was running fails with it, and the tests never reached are listed as not run."""
    path = every_run(tmp_path, "breaks_pytest", after="""\
        import _pytest.reports
        def broken(*args, **kwargs):
            raise RuntimeError("pytest's report class replaced")
        _pytest.reports.TestReport.from_item_and_call = broken
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    """)
    run = run_tests(lesson_for("ex01"), str(path), limits=LIMITS)
    first, *rest = run.outcomes
    assert not first.passed and first.ran and "pytest's own machinery failed" in first.explanation, run
    assert "pytest's report class replaced" in first.explanation, first.explanation
    assert rest and all(not o.ran for o in rest) and run.exit_code == 1, run


def test_a_loop_that_breaks_the_checks_own_pipe_is_told_so_not_os_exit(tmp_path):
    path = every_run(tmp_path, "closerange", "os.closerange(3, 1024)")
    run = run_tests(lesson_for("ex01"), str(path), limits=LIMITS)
    assert run.failed and "broke something the check needs" in run.failed[0].explanation, run.failed
    assert "os._exit(70)" not in run.failed[0].explanation


@pytest.mark.parametrize("name, value", [
    ("LOOPKIT_CHECK_SECONDS", ""), ("LOOPKIT_CHECK_SECONDS", "abc"), ("LOOPKIT_CHECK_SECONDS", "1e9"),
    ("LOOPKIT_CHECK_SECONDS", "inf"), ("LOOPKIT_CHECK_SECONDS", "nan"), ("LOOPKIT_CHECK_SECONDS", "0"),
    ("LOOPKIT_CHECK_SECONDS", "-1"), ("LOOPKIT_CHECK_MEMORY_MB", "abc"), ("LOOPKIT_CHECK_MEMORY_MB", "1.5"),
    ("LOOPKIT_CHECK_MEMORY_MB", "0"), ("LOOPKIT_CHECK_RUN_SECONDS", "abc"), ("LOOPKIT_CHECK_RUN_SECONDS", "-5"),
])
def test_a_bad_limit_in_the_environment_is_refused_in_one_line(name, value, monkeypatch, capsys):
    monkeypatch.setenv(name, value)
    with pytest.raises(LimitsRefused, match=name):
        CheckLimits.from_env()
    assert main(["check", "ex01"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and name in err and repr(value) in err and "Traceback" not in err, err


def test_explanations_are_capped_and_their_control_characters_escaped():
    assert tidy("a\x1b[31mred\rPASS\u2028x\ny") == "a\\x1b[31mred\\rPASS\\u2028x\ny"
    long = tidy("x" * (EXPLANATION_KEPT + 5000))
    assert len(long) < EXPLANATION_KEPT + 40 and long.endswith("… 5,000 more characters")


def test_a_test_judged_again_with_a_fork_per_run_keeps_the_sessions_limits(monkeypatch):
    """The memory figure in the explanation is the session's (LOOPKIT_CHECK_MEMORY_MB), not the sandbox default."""
    monkeypatch.setenv(SESSION, Session(300, 5.0, fork_per_run=True).encode())

    def hog(episode, max_steps=8):
        return [bytearray(100 * 1024 ** 2) for _ in range(100)]

    attempt = run_candidate(hog, "happy-path")
    assert "300 MB" in attempt.story(), attempt.story()


def test_processes_that_leave_the_process_group_are_stopped_by_the_subreaper():
    """Run in a process of its own: the subreaper is for the `loopkit check` command, never for this one."""
    code = textwrap.dedent("""\
        import os, time
        from reference.sandbox.orphans import become_subreaper, children, stop_orphans, wait_for
        if not become_subreaper():
            print("skip"); raise SystemExit
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "1717"])
            os._exit(0)
        wait_for({pid}, 120)  # minutes: it returns once the child is reaped; the default second is for the check
        print(stop_orphans(set(), 120), children())
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.stdout.strip() in ("skip", "1 set()"), done.stdout + done.stderr
