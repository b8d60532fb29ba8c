"""A thing made, then made again to amend it (reference/parts/guards/amended.py): a write whose answer named a new
id, sent in a later user turn with all its values kept and only words added, makes a second thing; a second thing
the user asked for, and a write in place that names no new id, are left alone."""
from __future__ import annotations

import pytest

from reference import Episode, parse_scenario
from reference.runs.registry import run_loop
from reference.parts.guards.amended import _answer_kinds, _grown, _names_the_kind
from reference.parts.guards.state import GuardedCall
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.field_runs import run_field


def test_a_ticket_opened_again_on_each_follow_up_is_caught_before_the_second_runs():
    scenario, result = run_field("ticket-opened-again-on-each-follow-up")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "repeated_call", (failed, interventions(result))


def test_a_file_written_again_with_the_users_section_runs():
    scenario, result = run_field("file-written-again-with-the-users-section")
    assert completed(scenario, result) and not interventions(result), interventions(result)


def _call(**arguments) -> GuardedCall:
    return GuardedCall(step=1, call=None, action="", arguments=arguments)  # type: ignore[arg-type]


def test_grown_means_every_word_of_the_first_kept():
    first = _call(subject="500 error on Renew passport", comment="HTTP 500 after Continue.")
    assert _grown(first, _call(subject="500 error on Renew passport", comment="HTTP 500 after Continue. Firefox 133."))
    assert _grown(first, _call(subject="500 error on Renew passport", comment="HTTP 500 after Continue.", ids="cr_101"))
    # another page is another subject, not the first one's grown
    assert not _grown(first, _call(subject="Login page times out", comment="HTTP 500 after Continue."))
    assert not _grown(first, first)


def test_an_email_sent_again_with_the_line_the_user_added_runs_where_nothing_edits_a_sent_email():
    scenario, result = run_field("email-sent-again-with-the-line-the-user-added")
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_a_user_who_names_the_kind_of_thing_the_tool_makes_asks_for_one():
    assert _names_the_kind("Separately, file another bug ... keep it its own issue.", {"issue"})
    assert _names_the_kind("Open two more tickets for the EU team.", {"ticket"})
    assert _names_the_kind("Add two more entries for the EU team.", {"entry"})  # an inflection that changes the end
    # a detail added names no kind: the first thing was meant to change
    assert not _names_the_kind("Oh, add that it only happens in Firefox.", {"issue"})
    assert not _names_the_kind("Update: it's only EU traffic, US looks fine.", {"incident"})
    assert not _names_the_kind("Also it happened on Firefox 133 on Windows, if that helps.", {"ticket"})


def test_the_kind_is_read_around_the_id_the_write_minted_not_around_ids_it_sent():
    answer = {"data": {"ticket": {"id": 88412, "project_id": 4471, "requester": {"id": 7310}}}}
    assert _answer_kinds(answer, "", {"4471", "7310"}) == {"ticket"}  # the project and the requester were sent
    assert _answer_kinds({"data": {"id": 88412}}, "", set()) == set()  # JSON:API's `data` holds any kind


@pytest.mark.parametrize("tool, answer, edit", [
    ("ticket_create", {"ticket": {"id": 88412, "status": "new"}}, "add_comment"),  # the member around the id
    ("tickets-create", {"id": "tk_88412", "object": "ticket"}, "add_comment"),  # Stripe's `object` beside the id
    ("NewTicket", {"ticket_id": 88412}, "add_comment"),  # the id member's own name
    ("ticket_create", {"data": {"id": 88412}}, "edit_ticket"),  # the edit's parameter named as an id
])
def test_the_kind_is_what_the_answer_and_the_schemas_call_the_thing_whatever_the_tool_is_called(tool, answer, edit):
    # the tool's name once gave the kind by its last word: "create" for `ticket_create`, so a user asking for
    # another ticket was stopped as one amending the first
    scenario = _second_ticket(tool, answer, edit)
    sc = parse_scenario(scenario, source="second-ticket")
    result = run_loop("guarded", Episode.from_scenario(sc))
    assert completed(sc, result) and not interventions(result), interventions(result)


def _second_ticket(tool: str, answer: dict, edit: str) -> dict:
    """A ticket made, then in the user's next turn another ticket asked for whose text holds the first's."""
    second = {**answer}
    return {
        "name": "second-ticket-asked-for", "title": "Another ticket asked for in a later turn",
        "user": "Open a ticket: the login page times out.",
        "user_turns": ["Open another ticket for mobile, where it happens too: keep it its own ticket."],
        "tools": [
            {"name": tool, "description": "Open a support ticket.", "parameters": {"type": "object", "properties": {
                "subject": {"type": "string"}}}, "rules": [{"results": [{"data": answer}, {"data": _bumped(second)}]}]},
            {"name": edit, "description": "Change a ticket.", "parameters": {"type": "object", "properties": {
                "ticket_id": {"type": "integer"}, "comment": {"type": "string"}}},
             "rules": [{"result": {"data": {"ok": True}}}]}],
        "model": {"script": [
            {"call": {"tool": tool, "args": {"subject": "Login page times out"}}},
            {"answer": "Opened."},
            {"call": {"tool": tool, "args": {"subject": "Login page times out on mobile"}}},
            {"answer": "Opened another."}]},
        "expect": {"completable": True, "stop_reason": "completed", "oracle_model_calls": 4}}


def _bumped(answer: object) -> object:
    """The same answer with every id one more (the second thing made)."""
    if isinstance(answer, dict):
        return {k: _bumped(v) if not k.endswith("id") else (v + 1 if isinstance(v, int) else f"{v}2")
                for k, v in answer.items()}
    return answer
