"""The grader's red flags read the books: a stop the loop reported that the books contradict is a false report."""
from __future__ import annotations

from reference.grade.rubric import red_flags
from reference.grade.suite import Outcome
from reference.interview.bank import load_bank


def flags(*outcomes: Outcome) -> set[str]:
    return {f.id for f in red_flags(load_bank(), list(outcomes))}


def test_done_reported_at_the_step_cap_is_a_red_flag():
    lied = Outcome("repeat-exact", "openai-chat", False, "scenario `repeat-exact`: rejected: your loop reported stop "
                   "reason `completed`, but the model's last turn (request 8) asked for 1 tool call(s) instead of "
                   "answering", error="ClaimRejected")
    assert "reports_an_end_it_did_not_reach" in flags(lied)


def test_an_honest_stop_at_the_cap_and_an_honest_completion_are_not():
    capped = Outcome("repeat-exact", "openai-chat", False, "stopped", stop_reason="max_steps",
                     answer="I stopped early: get_order_status said the parcel is in transit.")
    done = Outcome("happy-path", "openai-chat", True, "completed", stop_reason="completed", completed=True,
                   answer="It is sunny in Lisbon.")
    assert "reports_an_end_it_did_not_reach" not in flags(capped, done)


def test_the_flag_is_in_the_bank_in_both_languages():
    bank = load_bank()
    (flag,) = [f for f in bank.red_flags if f.id == "reports_an_end_it_did_not_reach"]
    assert flag["en"] and flag["zh"]
