"""`loopkit` from the shell: demo, scenarios, run (by name or by path), hint, and the error path."""
from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reference import catalogue
from reference.cli import main
from reference.cli.demo import DEMO_LOOPS
from reference.runs.registry import LOOPS
from reference.core.result import StopReason

ROOT = Path(__file__).resolve().parent.parent
DEMO_FIELDS = {"scenario", "loop", "stop_reason", "completed", "completable", "model_calls", "oracle_model_calls",
               "tool_calls", "input_tokens", "output_tokens", "cost_usd", "sim_seconds", "meets_expect"}

# A scenario as an interviewer would write it on the day: two tools, a model that repeats itself once.
INTERVIEW = """\
name: interview-stock-check
title: Stock check, asked twice
user: "Is the blue kettle (SKU K-204) in stock in Hangzhou?"
tools:
  - name: check_stock
    description: Units in stock for a SKU at a warehouse.
    parameters:
      type: object
      properties: {sku: {type: string}, warehouse: {type: string}}
      required: [sku, warehouse]
    rules:
      - when: {sku: K-204}
        result: {data: {sku: K-204, warehouse: HGH, units: 3}}
  - name: list_warehouses
    rules:
      - result: {data: [HGH, SHA, PEK]}
model:
  wire: anthropic
  script:
    - call: {tool: check_stock, args: {sku: K-204, warehouse: HGH}}
    - call: {tool: check_stock, args: {sku: K-204, warehouse: HGH}}
    - answer: "Yes: 3 blue kettles (K-204) are in stock in Hangzhou."
limits: {max_steps: 6}
expect:
  completable: true
  stop_reason: completed
  oracle_model_calls: 2
  answer_contains: ["3 blue kettles", Hangzhou]
"""


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_json_has_exactly_the_documented_fields_per_row(capsys):
    code, out, _ = run_cli(capsys, "demo", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(catalogue()) * len(DEMO_LOOPS), f"one row per scenario and loop, got {len(rows)}"
    for row in rows:
        assert set(row) == DEMO_FIELDS, f"{row['scenario']}: fields {sorted(set(row) ^ DEMO_FIELDS)} differ"
        assert row["loop"] in LOOPS and StopReason(row["stop_reason"]), row
        assert row["model_calls"] >= 1 and row["input_tokens"] > 0 and row["sim_seconds"] > 0, row
    happy = next(r for r in rows if r["scenario"] == "happy-path" and r["loop"] == "react")
    assert (happy["completed"], happy["meets_expect"], happy["model_calls"]) == (True, True, 2), happy


@pytest.fixture(scope="module")
def demo_table() -> tuple[int, str]:
    """`loopkit demo`'s exit code and table, run once for the tests that read it (every scenario through each loop)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["demo"])
    return code, out.getvalue()


def test_demo_table_ends_with_the_measured_wall_time(demo_table):
    code, out = demo_table
    assert code == 0 and "TOTAL" in out and "happy-path" in out, out[:400]
    assert f"{len(catalogue())} scenarios x {len(DEMO_LOOPS)} loop(s) in " in out.splitlines()[-1], out.splitlines()[-1]


def test_demo_table_explains_each_column_and_writes_cost_and_oracle_alike(demo_table):
    code, out = demo_table
    header = next(line for line in out.splitlines() if line.startswith("scenario "))
    titles = [t for t in re.split(r"\s{2,}", header.strip())][1:]
    legend = out.rsplit("\n\n", 2)[-2]
    for title in titles:
        if title not in ("model calls", "tokens"):
            assert any(line.startswith(title + " ") for line in legend.splitlines()), f"no legend for {title!r}"
    rows = {line.split()[0]: line for line in out.splitlines() if line.split() and line.split()[0] in
            {s.name for s in catalogue()}}
    for scenario in catalogue():
        cells = re.split(r"\s{2,}", rows[scenario.name].strip())
        assert cells[3] == ("-" if scenario.expect.oracle_model_calls is None else str(scenario.expect.oracle_model_calls)), \
            f"{scenario.name}: the oracle cell is {cells[3]!r}"
        costs = cells[5].split(" / ")
        assert all(re.fullmatch(r"[\d,]+\.\d{4}", c) for c in costs), f"{scenario.name}: cost cells {costs}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("## What `loopkit demo` shows", 1)[1]
    readme_header = next(line for line in readme.splitlines() if line.startswith("| loop |"))
    for column in ("task done", "meets", "model calls", "tokens", "cost", "sim"):
        assert column in readme_header, f"the README's demo table lacks {column!r}"
    for column in ("task done", "meets expect", "model calls", "tokens", "cost $", "sim s"):
        assert column in titles, f"the demo does not print {column!r}, which the README's table shows"


def test_scenarios_lists_every_catalogue_scenario_once(capsys):
    code, out, _ = run_cli(capsys, "scenarios")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(catalogue()), lines
    for scenario, line in zip(catalogue(), lines):
        assert line.startswith(scenario.name + " ") and scenario.title in line, line


def test_run_by_name_json_includes_the_answer_and_the_expect_checks(capsys):
    code, out, _ = run_cli(capsys, "run", "happy-path", "--json")
    record = json.loads(out)
    assert code == 0 and "light rain" in record["answer"] and "MU5138" in record["answer"], record["answer"]
    assert DEMO_FIELDS <= set(record) and record["stop_reason"] == "completed"
    assert all(check["ok"] for check in record["expect"]), record["expect"]


def test_run_prints_a_readable_trace(capsys):
    code, out, _ = run_cli(capsys, "run", "repeat-exact")
    assert code == 0 and "stop reason: max_steps" in out and "FAIL" in out and "step  8" in out, out


def test_run_a_scenario_file_written_fresh_by_an_interviewer(tmp_path, capsys):
    path = tmp_path / "interview-stock-check.yaml"
    path.write_text(INTERVIEW, encoding="utf-8")
    code, out, err = run_cli(capsys, "run", str(path), "--json")
    assert code == 0, err
    record = json.loads(out)
    assert (record["scenario"], record["stop_reason"], record["model_calls"], record["tool_calls"]) == \
        ("interview-stock-check", "completed", 3, 2), record
    assert record["answer"] == "Yes: 3 blue kettles (K-204) are in stock in Hangzhou."
    assert record["oracle_model_calls"] == 2 and record["completed"] is True


def test_a_broken_file_exits_with_code_2_naming_the_file_and_the_field(tmp_path, capsys):
    path = tmp_path / "broken.yaml"
    path.write_text(INTERVIEW.replace("call: {tool: check_stock", "call: {tool: check_stok", 1), encoding="utf-8")
    code, out, err = run_cli(capsys, "run", str(path), "--json")
    assert code == 2 and out == "", f"exit code {code}, stdout {out!r}"
    assert err.startswith("loopkit: invalid scenario\n"), err
    assert f"{path}: model.script[0].call.tool: 'check_stok' is not one of the scenario's tools" in err, err


def test_an_unknown_scenario_name_exits_with_code_2_listing_the_catalogue(capsys):
    code, _, err = run_cli(capsys, "run", "hapy-path")
    assert code == 2 and "no scenario named 'hapy-path'" in err and "happy-path" in err, err


def test_hint_prints_the_requested_hint_and_points_to_the_next(capsys):
    code, out, _ = run_cli(capsys, "hint", "ex01", "2")
    hints = (ROOT / "reference" / "hints" / "ex01.md").read_text(encoding="utf-8").split("\n## Hint ")[1:]
    assert code == 0 and out.startswith(f"ex01, hint 2 of {len(hints)}:\n\n"), out
    text = hints[1].split("\n", 2)[2].strip()  # under the heading, the line naming the hint's tests
    assert text in out, "hint 2's text, as written in reference/hints/ex01.md"
    assert "<!--" not in out, "the tests a hint is for are not part of its text"
    assert out.rstrip().endswith("(more: loopkit hint ex01 3)"), out


def test_demo_path_imports_no_sdk_in_a_fresh_process():
    """`loopkit demo` stays fast by never importing the SDKs or jsonschema's heavy extras: checked by what is
    imported, not by the clock (benchmarks/demo_speed.py measures the time)."""
    code = ("import sys; from reference.cli.main import main; main(['demo']); "
            "print(sorted(m for m in ('openai', 'anthropic', 'httpx2', 'rfc3987_syntax') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("[]"), f"the demo path imported {proc.stdout.splitlines()[-1]}"


def test_check_shows_each_failing_test_with_its_story_and_the_first_hint():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "reference.cli", "check", "ex01"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL  test_happy_path_completes_with_the_answer" in done.stdout, done.stdout[:600]
    assert "scenario `happy-path`: your loop raised NotImplementedError" in done.stdout, done.stdout[:600]
    assert "ex01: 0 passed" in done.stdout and "Hint 1:" in done.stdout, done.stdout[-600:]
    assert "FFFF" not in done.stdout, "pytest's own progress line leaked into the report"


def test_hint_without_a_number_is_the_hint_for_the_first_test_the_stub_fails():
    done = subprocess.run([sys.executable, "-m", "reference.cli", "hint", "ex02"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    first = "test_token_blowup_stops_on_the_token_budget"  # the first test in tests/test_ex02_budget.py
    assert done.returncode == 0 and f"(your code fails {first})" in done.stdout, done.stdout + done.stderr
    assert done.stdout.startswith("ex02, hint 2 of 5"), "hint 2 is the one written for that test"


def test_a_failure_keeps_the_whole_assertion_message_and_drops_pytests_introspection():
    from types import SimpleNamespace

    from reference.cli.exercise_tests import explanation

    crash = SimpleNamespace(message="AssertionError: scenario `x`: stopped for max_steps\nexpected: completed\n"
                                    "assert 'max_steps' == 'completed'\n  - completed\n  + max_steps")
    report = SimpleNamespace(longrepr=SimpleNamespace(reprcrash=crash))
    assert explanation(report) == "scenario `x`: stopped for max_steps\nexpected: completed"


def test_demo_names_the_loops_stop_reason_apart_from_whether_the_task_was_done(capsys):
    """A run whose stop reason is `completed` but whose task is not done must not read as a contradiction."""
    code, out, _ = run_cli(capsys, "demo", "--loop", "react")
    header = next(line for line in out.splitlines() if line.startswith("scenario "))
    assert code == 0 and "loop's stop reason" in header and "task done" in header, header
    assert " completed " not in f" {header} ", "no column is titled just `completed`"
    assert "a loop can stop\n                    with `completed` and still not have done the task" in out, out[-600:]


@pytest.mark.slow  # nine check sessions (~6 s of CPU): the command's table and next step are checked in process below,
#                   the check's outcomes on the stubs in test_check_session.py
def test_list_shows_every_exercise_and_sends_a_beginner_to_the_first_failing_test():
    from reference.lessons import EXERCISES

    done = subprocess.run([sys.executable, "-m", "reference.cli", "list"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    for lesson in EXERCISES:  # the untouched stubs fail every test
        line = next(line for line in done.stdout.splitlines() if line.startswith(lesson.exercise + " "))
        assert f"exercises/{lesson.module}.py" in line and " 0/" in line and "tests pass" in line, line
    first = "test_happy_path_completes_with_the_answer"  # the first test in tests/test_ex01_react_loop.py
    assert f"Next: ex01 (ex01_react_loop.py), which fails {first}." in done.stdout, done.stdout
    assert "loopkit hint ex01 1 " in done.stdout and "loopkit check ex01 " in done.stdout, done.stdout


@pytest.mark.slow  # seven sessions more (~7 s of CPU): the command's path is the one above; the check's outcomes on the
#                   solutions are test_check_session.py's, in the default suite
def test_list_on_the_solutions_says_every_exercise_is_done():
    done = subprocess.run([sys.executable, "-m", "reference.cli", "list", "--solutions"], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    lines = [line for line in done.stdout.splitlines() if line.startswith("ex0")]
    assert done.returncode == 0 and lines and all(line.rstrip().endswith("done") for line in lines), done.stdout
    assert "Every exercise passes." in done.stdout


def test_list_shows_each_exercises_file_and_status_and_the_next_step(monkeypatch, capsys):
    """The command's table and next step from the runs the check gives (here each lesson's run as on the untouched
    stub; the real runs are the slow case above)."""
    from reference.cli import progress
    from reference.cli.exercise_tests import Outcome, TestRun
    from reference.lessons import EXERCISES

    first = "test_happy_path_completes_with_the_answer"  # the first test in tests/test_ex01_react_loop.py
    asked = []

    def stub_run(lesson, target):
        asked.append((lesson.exercise, target))
        return TestRun([Outcome(first, False, "why"), Outcome("test_b", False, "why")], 1, "")

    monkeypatch.setattr(progress, "run_tests", stub_run)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert asked == [(lesson.exercise, "exercises") for lesson in EXERCISES]
    for lesson in EXERCISES:
        line = next(line for line in out.splitlines() if line.startswith(lesson.exercise + " "))
        assert f"exercises/{lesson.module}.py" in line and "0/2 tests pass" in line, line
    assert f"Next: ex01 (ex01_react_loop.py), which fails {first}." in out and "loopkit hint ex01 1 " in out, out


def test_list_points_at_the_first_exercise_not_done_and_its_tests_hint():
    from reference.cli.exercise_tests import Outcome, TestRun
    from reference.cli.progress import next_step

    done = TestRun([Outcome("test_a", True)], 0, "")
    runs = {"ex01": done, "ex02": TestRun([Outcome("test_a", True)], 0, ""),
            "ex03": TestRun([Outcome("test_intervene_before_stop", True),
                             Outcome("test_noisy_repeats_share_one_fingerprint[exercises]", False, "why")], 1, ""),
            "ex04": TestRun([], 2, "SyntaxError"), "ex05": done}
    text = next_step(runs)
    assert text.startswith("Next: ex03 (ex03_fingerprint_guard.py), which fails test_noisy_repeats_share_one_fingerprint."), text
    assert "loopkit hint ex03 1 " in text, "hint 1 of ex03 is written for that test (reference/hints/ex03.md)"
    assert next_step({**runs, "ex03": done}).startswith("Next: ex04 does not run; `loopkit check ex04` shows why.")
    stretch = TestRun([Outcome("test_same_result_is_stopped[exercises]", False, "why")], 1, "")
    cores_done = {name: done for name in ("ex01", "ex02", "ex03", "ex04", "ex05", "ex06", "ex07")}
    assert next_step({**runs, "ex03b": stretch}).startswith("Next: ex03 "), "a lesson's core comes before its stretch"
    assert next_step({**cores_done, "ex03b": stretch}).startswith("Next: ex03b (ex03b_guard_stretch.py)"), \
        "with every core done, the first stretch not done is next"


def test_check_watch_checks_again_after_each_save_of_the_exercise_and_ignores_other_files(monkeypatch, capsys):
    """The watch loop, fed a made-up series of file changes instead of a real watcher."""
    from argparse import Namespace

    from reference.cli import check

    monkeypatch.setattr(sys, "dont_write_bytecode", sys.dont_write_bytecode)  # watch() sets it; restored after
    args = Namespace(exercise="ex01", solutions=False, watch=True)
    mine = ROOT / "exercises" / "ex01_react_loop.py"
    changes = [{(2, str(ROOT / "exercises" / "ex02_budget.py"))},   # another exercise: not this one's business
               {(2, str(mine))},                                     # a save: check again (still failing)
               {(1, str(mine.with_suffix(".py.swp"))), (2, str(mine))},  # an editor's save with its temp file
               {(3, str(ROOT / "exercises" / "notes.txt"))}]
    results = iter([1, 1, 0])
    calls = []

    def fake_check(a):
        calls.append(a.exercise)
        return next(results)

    assert check.watch(args, changes, check=fake_check) == 0
    out = capsys.readouterr().out
    assert calls == ["ex01", "ex01", "ex01"], "once at the start, then once per save of ex01_react_loop.py"
    assert out.count("ex01_react_loop.py changed: checking again") == 2, out
    assert out.count("Watching exercises/ex01_react_loop.py: save it to check again, Ctrl-C to stop.") == 3, out
    assert out.rstrip().endswith("ex01 passes. Watching exercises/ex01_react_loop.py: save it to check again, "
                                 "Ctrl-C to stop."), out


def test_check_watch_is_an_option_of_check_and_watches_the_exercises_folder(monkeypatch):
    from reference.cli import check

    seen = {}
    monkeypatch.setattr(check, "watch", lambda args, changes: seen.update(args=args, changes=changes) or 0)
    monkeypatch.setattr(check, "saves", lambda path: ["changes in", path])
    assert main(["check", "--watch", "ex03"]) == 0
    assert seen["changes"] == ["changes in", ROOT / "exercises" / "ex03_fingerprint_guard.py"]
