"""No progress and the things the agent was given: a checklist the user wrote is worked through, even by empty
answers; names the agent made up, each answering empty, are still no progress. And one instant respelled in
another offset is one value."""

import pytest

from reference.core.canonical import call_fingerprint
from reference.core.dates import canonical_moment
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.field_runs import run_field


def test_empty_answers_about_what_the_user_listed_are_progress_and_made_up_names_are_not():
    scenario, result = run_field("repos-the-user-listed-all-empty")
    assert completed(scenario, result) and not interventions(result), interventions(result)
    scenario, result = run_field("repos-the-agent-made-up-all-empty")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "no_progress", (failed, interventions(result))


@pytest.mark.parametrize("spelling", ["2026-12-03T00:00:00-05:00", "2026-12-02T21:00:00-08:00",
                                      "2026-12-03T05:00:00.000Z", "2026-12-03t05:00:00z"])
def test_one_instant_in_any_offset_is_one_moment(spelling):
    assert canonical_moment(spelling) == "2026-12-03T05:00:00Z"


def test_a_local_time_a_date_and_another_instant_keep_their_own_value():
    assert canonical_moment("2026-12-03T00:00:00") is None  # no offset: read in a zone another argument may name
    assert canonical_moment("2026-12-03") is None
    assert canonical_moment("2026-12-03T05:00:00.5Z") == "2026-12-03T05:00:00.5Z"
    a = call_fingerprint("list_events", '{"timeMin": "2026-12-03T00:00:00-05:00"}')
    assert a == call_fingerprint("list_events", '{"timeMin": "2026-12-03T05:00:00Z"}')
    assert a != call_fingerprint("list_events", '{"timeMin": "2026-12-04T00:00:00-05:00"}')
    assert call_fingerprint("list_events", '{"timeMin": "2026-12-03T00:00:00-05:00"}', meaning=False) != a


@pytest.mark.parametrize("loop, legitimate", [
    ("days-past-the-users-day-all-empty", "days-of-the-users-window-all-empty"),
    ("search-reworded-after-its-answer", "parallel-searches-two-rate-limited"),
])
def test_the_days_of_a_window_and_a_batch_sent_together_are_not_loops(loop, legitimate):
    scenario, result = run_field(legitimate)
    assert completed(scenario, result) and not interventions(result), interventions(result)
    scenario, result = run_field(loop)
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == scenario.expect.stop_reason, (failed, interventions(result))
