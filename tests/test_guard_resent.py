"""A write sent again in other words (reference/parts/guards/resent.py): a write that differs from one that took
only in the agent's own wording is the same write sent again; the same notes posted again under an emoji are
caught, and the repost the user asked for, and writes told apart by what the user listed, are left alone."""
from __future__ import annotations

from reference.parts.guards.resent import _reworded
from reference.parts.guards.state import GuardedCall
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.field_runs import run_field


def test_the_same_notes_posted_again_under_an_emoji_are_caught_before_they_run():
    scenario, result = run_field("notes-posted-again-with-a-prefix")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "repeated_call", (failed, interventions(result))


def test_a_repost_the_user_asked_for_runs():
    scenario, result = run_field("notes-posted-twice-as-the-user-asked")
    assert completed(scenario, result) and not interventions(result), interventions(result)


def _call(**arguments) -> GuardedCall:
    return GuardedCall(step=1, call=None, action="", arguments=arguments)  # type: ignore[arg-type]


def test_only_wording_apart_means_the_same_values_in_other_words():
    notes = "v2.14.0 is out: a new --dry-run flag"
    assert _reworded(_call(channel="C1", text=notes), _call(channel="C1", text=":rocket: " + notes))
    # another version named is another thing, not a rewording
    assert not _reworded(_call(text=notes), _call(text="v2.15.0 is out: a new --dry-run flag"))
    # a wait that grows changes only numbers: a poll backing off, not a write in other words
    assert not _reworded(_call(command="sleep 30 && status job-7731"), _call(command="sleep 60 && status job-7731"))
