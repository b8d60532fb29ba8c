"""Duplicate writes judged by their answers (reference/parts/guards/own.py): an answer new only by what the call
minted is the same acknowledgement, a read of the write's own effect is no news for it, and the other items of
a batch answer for that batch; each with the legitimate work it must leave alone."""
from __future__ import annotations

import pytest

from reference.parts.guards.counts import asked_for
from reference.parts.guards.own import minted_apart
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.field_runs import run_field


@pytest.mark.parametrize("loop, legitimate", [
    ("certificate-sent-again-new-id", "jobs-created-three-times-as-asked"),
    ("insert-again-after-reading-its-total", "insert-again-after-user-reports-second-wire"),
    ("batch-sent-again-whole-after-one-timeout", "batch-item-that-timed-out-sent-again"),
    ("reply-posted-again-text-id", "reply-posted-again-after-list-misses-it"),
    ("job-created-again-after-reading-its-log", "jobs-created-three-times-as-asked-listed-between"),
    ("comment-posted-again-after-view-shows-it", "comment-posted-again-after-view-misses-it"),
    ("insert-again-after-reading-its-total", "remaining-count-read-after-each-batch"),
])
def test_a_duplicate_write_is_caught_and_the_work_beside_it_is_left_alone(loop, legitimate):
    scenario, result = run_field(loop)
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "repeated_call", (failed, interventions(result))
    scenario, result = run_field(legitimate)
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_an_answer_new_only_by_what_the_call_minted_is_the_same_acknowledgement():
    sent = "Email sent successfully! {\"id\":\"4ef9a417-02e9-4d39-ad75-9611e0fcc33c\"}"
    again = "Email sent successfully! {\"id\":\"b3d1c0e2-7a44-4f0e-9c2b-61a1f0d5e8aa\"}"
    assert minted_apart(sent, again)
    assert minted_apart("Certificate certificate_3221322 added", "Certificate certificate_3221323 added")
    assert minted_apart("Comment created successfully: {'id': 31877140021, 'public': True}",
                        "Comment created successfully: {'id': 31877152210, 'public': True}")  # a repr, not JSON
    assert minted_apart([{"id": 48213, "created_at": "2026-12-02T03:21:07.412Z"}],
                        [{"id": 48214, "created_at": "2026-12-02T03:21:19.088Z"}])


@pytest.mark.parametrize("was, is_", [
    ("step 400 loss 0.23", "step 500 loss 0.19"),  # a count and a measure moved: news
    ("3 rows: ada, bob, cy", "3 rows: dee, eve, flo"),  # the next rows a "Load more" brought
    ("Email sent successfully!", "Email sent successfully!"),  # nothing minted: the same answer, another rule's
    ({"balance": 10}, {"balance": 20}),  # a total moved, not named as an id
    ("Comment 12 of 40 posted", "Comment 13 of 40 posted"),  # a count in text, not labelled as an id
])
def test_what_the_world_showed_is_not_minted(was, is_):
    assert not minted_apart(was, is_)


def test_the_user_asks_for_a_count_in_words():
    assert asked_for("Kick off three runs, so just create it three times.") == 3
    assert asked_for("Run it 4 times.") == 4
    assert asked_for("My flight HAT045 on May 14 was cancelled. Send the compensation.") == 1
