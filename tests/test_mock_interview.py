"""The mock interview's logic: follow-ups one at a time, self-scoring that cannot undo what a run showed."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from reference.grade import grade_file
from reference.interview.bank import load_bank
from reference.lab.mock import MockInterview, static_text

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def naive():
    return grade_file(ROOT / "docs/candidates/kit_api.py", "quick")


def test_the_follow_ups_come_one_at_a_time_and_end():
    interview = MockInterview(load_bank())
    asked = [interview.reveal() for _ in range(6)]
    assert [layer.id for layer in asked[:5]] == [layer.id for layer in load_bank().layers] and asked[5] is None
    assert "(pressure)" in interview.layer_text(4) and "A strong answer:" in interview.layer_text(0, True)


def test_ticks_add_only_what_the_runs_could_not_show(naive):
    interview = MockInterview(load_bank())
    assert interview.score(naive, set())[0] == naive.total and abs(naive.total - load_bank().scale.pass_line) <= 5
    # a contradicted item stays at 0 when ticked; the two asked bonus items add 5 each
    total, lines = interview.score(naive, {"budgets_beside_steps", "stop_reason_health", "native_function_calling"})
    assert total == naive.total + 10 and any("contradicted by a run" in line for line in lines)


def test_the_widgets_reveal_and_rescore(naive):
    from reference.lab.mock import MockInterviewWidgets

    ui = MockInterviewWidgets(MockInterview(load_bank()), naive)
    ui.next_button.click()
    assert "Follow-up 1 of 5" in ui.question.value
    ui.answer_button.click()
    assert "A strong answer" in ui.question.value
    ui.ticks["stop_reason_health"].value = True
    assert f"<b>{naive.total + 5}</b>" in ui.total.value
    for _ in range(5):
        ui.next_button.click()
    assert ui.next_button.disabled


def test_the_static_fallback_holds_the_whole_interview():
    text = static_text(MockInterview(load_bank()))
    assert text.startswith("Opener: ") and text.count("Follow-up ") == 5 and "Rubric" in text


def test_the_mock_interview_speaks_the_banks_other_language():
    text = static_text(MockInterview(load_bank(), lang="zh"))
    assert text.startswith("开场：") and text.count("追问 ") == 5 and "评分项" in text, text[:300]
    assert not re.search(r"Follow-up|Opener|A strong answer|Weak:", text), "no English label in the Chinese interview"


def test_lessons_6_7_and_the_mock_interview_have_a_language_switch():
    for source in ("06_trace_diagnosis", "07_design_not_fuse", "mock_interview"):
        text = (ROOT / "notebooks" / "src" / f"{source}.py").read_text(encoding="utf-8")
        assert re.search(r'^LANG = "en"  # .*"zh"', text, re.MULTILINE), f"{source}: no LANG switch for the bank"
        assert '"en"' not in text.split("LANG = ", 1)[1].split("\n", 1)[1].split("# %%", 1)[0], \
            f"{source}: the bank is rendered in a fixed language after the switch"
