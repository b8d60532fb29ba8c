"""`loopkit grade` scores candidate loops of known quality in the order written down here, BEFORE the
grader was built (this file was committed on its own, first). Ties are groups: every loop in a group
gets the same total, and each group scores above the next.

The naive loop of each kind (the templates in docs/candidates/) sits on the pass line, 60; the full
guarded loop earns everything a run can show, 90; a red flag costs marks; a loop that breaks the
protocol, or a file that cannot run at all, earns nothing, with a report that says why.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
C = "tests/candidates/"
D = "docs/candidates/"

EXPECTED_ORDER: list[list[str]] = [
    [C + "guarded_full.py"],                                    # every part of lessons 2-5
    [C + "budget_degrade.py"],                                  # budgets and a degraded result, no guards
    [D + "kit_api.py", D + "plain_functions.py", D + "openai_chat.py",  # the naive loop, in every kind
     D + "openai_responses.py", D + "anthropic_messages.py", C + "openai_async.py"],
    [C + "exception_escapes.py", C + "stack_trace_to_model.py",  # the naive loop plus one red flag
     C + "max_steps_to_user.py", C + "while_true.py"],
    [C + "drops_assistant_turn.py", C + "exits_on_import.py", C + "busy_loop.py"],  # nothing works
]
EXPECTED_TOTALS = {C + "guarded_full.py": 90, D + "kit_api.py": 60, C + "busy_loop.py": 0}
EXPECTED_KINDS = {D + "kit_api.py": "kit", D + "plain_functions.py": "plain", D + "openai_chat.py": "openai-chat",
                  D + "openai_responses.py": "openai-responses", D + "anthropic_messages.py": "anthropic",
                  C + "openai_async.py": "openai-chat", C + "guarded_full.py": "kit"}
EXPECTED_FLAGS = {C + "exception_escapes.py": "exception_escapes", C + "stack_trace_to_model.py": "raw_stack_trace",
                  C + "max_steps_to_user.py": "max_steps_to_user", C + "while_true.py": "while_true_no_exit",
                  C + "drops_assistant_turn.py": "drops_assistant_turn"}


# A loop that never returns meets any time limit, however busy the machine: it gets a short one. Every other run
# gets a limit no run of a few milliseconds reaches on a loaded machine (a guard against a hang, not a measure),
# so that no score depends on the machine's load.
NEVER_RETURNS = {C + "busy_loop.py"}
SHORT_LIMIT = 0.25
GUARD = 120.0


@pytest.fixture(scope="module")
def grades():
    from reference.grade import grade_file

    return {path: grade_file(ROOT / path, time_limit=SHORT_LIMIT if path in NEVER_RETURNS else GUARD)
            for group in EXPECTED_ORDER for path in group}


def test_the_scores_follow_the_written_order(grades):
    totals = [[grades[path].total for path in group] for group in EXPECTED_ORDER]
    for group, scores in zip(EXPECTED_ORDER, totals):
        assert len(set(scores)) == 1, f"a tie was expected: {dict(zip(group, scores))}"
    firsts = [scores[0] for scores in totals]
    assert firsts == sorted(firsts, reverse=True) and len(set(firsts)) == len(firsts), totals


def test_the_pass_line_and_the_top(grades):
    assert {path: grades[path].total for path in EXPECTED_TOTALS} == EXPECTED_TOTALS


def test_the_kind_of_each_file(grades):
    assert {path: grades[path].kind for path in EXPECTED_KINDS} == EXPECTED_KINDS


def test_each_red_flag_is_named(grades):
    for path, flag in EXPECTED_FLAGS.items():
        assert flag in [f.id for f in grades[path].red_flags], (path, grades[path].red_flags)


def test_a_hostile_file_gets_a_clear_report(grades):
    exits = grades[C + "exits_on_import.py"]
    assert all(not run.passed and "sys.exit(3)" in run.story for run in exits.runs)
    busy = grades[C + "busy_loop.py"]
    assert any("time limit" in run.story for run in busy.runs)
