"""A thing made, then made again to amend it (reference/parts/guards/amended.py): a write whose answer named a new
thing, sent in a later user turn with only words added and the first's subject kept, a field the first left out
filled, or after the user named what it made, makes a second thing where another write takes what the first made; a second thing worded apart, in
whatever language the user asked for it, and a write in place that names no new thing, are left alone."""
from __future__ import annotations

import pytest

from reference import Episode, parse_scenario
from reference.runs.registry import run_loop
from reference.parts.guards.amended import _a_wording, _grown
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


def _ticket(user_turn: str, second: dict, edit: str = "update_ticket", parameter: str = "ticket_id",
            answer: dict | None = None) -> dict:
    """A ticket made; in the user's next turn (`user_turn`) the same tool sent again with `second` as its arguments,
    beside an edit tool `edit` that takes `parameter`."""
    first = {"subject": "500 error on the Renew passport page",
             "comment": "HTTP 500 after clicking Continue on the Renew passport page.",
             "requester_email": "sam.k@example.org"}
    answer = answer or {"ticket": {"id": 88412, "status": "new"}}
    answers = [answer, _next(answer)]
    return {
        "name": "ticket-made-again", "title": "A ticket made, then the same tool sent again in the next turn",
        "user": "The renew passport page shows a 500 error when I click Continue. My email is sam.k@example.org",
        "user_turns": [user_turn],
        "tools": [
            {"name": "create_ticket", "description": "Create a support ticket.", "parameters": {
                "type": "object", "properties": {k: {"type": "string"} for k in first}},
             "rules": [{"results": [{"data": a} for a in answers]}]},
            {"name": edit, "description": "Add a comment to a ticket.", "parameters": {"type": "object", "properties": {
                parameter: {"type": "integer"}, "comment": {"type": "string"}}, "required": [parameter, "comment"]},
             "rules": [{"result": {"data": {"ok": True}}}]}],
        "model": {"script": [{"call": {"tool": "create_ticket", "args": first}}, {"answer": "Logged."},
                             {"call": {"tool": "create_ticket", "args": {**first, **second}}}, {"answer": "Logged."}]},
        "expect": {"completable": True, "stop_reason": "completed", "oracle_model_calls": 4}}


def _next(answer: object) -> object:
    """The same answer for the next thing made: every number one more."""
    if isinstance(answer, dict):
        return {k: _next(v) for k, v in answer.items()}
    if isinstance(answer, int):
        return answer + 1
    return f"{answer[:-1]}9" if isinstance(answer, str) and answer[-1:].isdigit() else answer


def _flagged(scenario: dict) -> list[str]:
    sc = parse_scenario(scenario, source=scenario["name"])
    return interventions(run_loop("guarded", Episode.from_scenario(sc)))


GROWN = {"comment": "HTTP 500 after clicking Continue on the Renew passport page. Browser Firefox 133."}


@pytest.mark.parametrize("user_turn", [
    "It happens in Firefox 133 too.",
    "Also add to the ticket that it happens in Firefox 133.",  # the user names the kind: still the same ticket
    "Ah, und im Firefox 133 passiert es auch.",
])
def test_a_copy_grown_by_the_users_detail_that_keeps_the_subject_is_caught_whatever_the_user_calls_it(user_turn):
    assert _flagged(_ticket(user_turn, GROWN))[:1] == ["repeated_call"]


@pytest.mark.parametrize("user_turn", [
    "File another bug, keep it separate: the renew passport page fails in Firefox 133 too.",
    "Abre otra incidencia aparte: en Firefox 133 también falla.",
    "Bitte noch ein eigenes Ticket: im Firefox 133 passiert es auch.",
])
def test_a_second_thing_worded_apart_from_the_first_runs_in_any_language(user_turn):
    narrower = {"subject": "500 error on the Renew passport page in Firefox 133",
                "comment": "HTTP 500 after clicking Continue on the Renew passport page in Firefox 133."}
    assert _flagged(_ticket(user_turn, narrower)) == []


def test_a_copy_that_fills_a_field_the_first_left_out_is_caught_though_its_subject_grew():
    """The incident opened again with "(EU only)" in its title and the user's update as the body it had none of."""
    scenario = _ticket("Update: it's only EU traffic, US looks fine.",
                       {"subject": "500 error on the Renew passport page (EU only)", "comment": "EU traffic only."})
    del scenario["model"]["script"][0]["call"]["args"]["comment"]
    assert _flagged(scenario)[:1] == ["repeated_call"]


def test_a_copy_worded_apart_after_the_user_named_what_the_first_made_is_caught():
    """The user points at the ticket by the id its answer gave: a copy of it, reworded, is the ticket again."""
    narrower = {"subject": "500 error on the Renew passport page (Firefox 133)",
                "comment": "HTTP 500 after clicking Continue on the Renew passport page. Browser Firefox 133."}
    assert _flagged(_ticket("Add to 88412 that it happens in Firefox 133 too.", narrower))[:1] == ["repeated_call"]


@pytest.mark.parametrize("answer, edit, parameter", [
    ({"id": 2718281801, "number": 4242, "state": "open"}, "add_issue_comment", "issue_number"),  # GitHub MCP
    ({"ticket": {"id": 88412}}, "update_ticket", "ticket_id"),
    ({"TicketID": 88412}, "update_ticket", "TicketID"),
])
def test_the_tools_change_what_was_made_when_another_writes_parameter_takes_a_value_its_answer_gave(
        answer, edit, parameter):
    assert _flagged(_ticket("It happens in Firefox 133 too.", GROWN, edit, parameter, answer))[:1] == ["repeated_call"]


def test_no_edit_takes_what_was_made_when_no_parameter_takes_a_value_its_answer_gave():
    """The comment tool takes a pull request's number; the ticket's answer gave an id and no number: nothing edits
    the ticket, so making it again is the only way to amend it."""
    scenario = _ticket("It happens in Firefox 133 too.", GROWN, "add_pr_comment", "pull_number")
    assert _flagged(scenario) == []


def test_a_wording_is_words_not_a_value_written_in_words_and_numbers():
    assert _a_wording("500 error on the Renew passport page")
    assert _a_wording("Botón Guardar sin respuesta")
    assert not _a_wording("tomorrow 9:00")  # the time of a second reminder, kept as the text grew
    assert not _a_wording("WEB")


@pytest.mark.parametrize("tool, answer, edit", [
    ("ticket_create", {"ticket": {"id": 88412, "status": "new"}}, "add_comment"),  # the member around the id
    ("tickets-create", {"id": "tk_88412", "object": "ticket"}, "add_comment"),  # Stripe's `object` beside the id
    ("NewTicket", {"ticket_id": 88412}, "add_comment"),  # the id member's own name
    ("ticket_create", {"data": {"id": 88412}}, "edit_ticket"),  # the edit's parameter named as an id
])
def test_a_second_thing_asked_for_worded_apart_runs_whatever_the_tool_is_called(tool, answer, edit):
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


def _resent_email(tmp_path, *edits):
    from tests.helpers.chat_logs import flags, tool
    send = tool("send_email", "Sends a new email", to={"type": "array", "items": {"type": "string"}}, subject="string",
                body="string")
    body = "Hi team, the weekly numbers: revenue 1.2M, churn 2.1%."
    mail = {"to": ["team@acme.io"], "subject": "Weekly numbers"}
    steps = [("send_email", {**mail, "body": body}, "Email sent successfully with ID: 18c9f2a7b3d4e5f6"),
             "Oops, please send it again and add that the numbers are preliminary.",
             ("send_email", {**mail, "body": body + " These numbers are preliminary."},
              "Email sent successfully with ID: 18c9f2a7b3d4e600")]
    return flags(tmp_path, [send, *edits], "Send the weekly numbers to team@acme.io: revenue 1.2M, churn 2.1%.", steps)


def test_a_write_that_takes_the_made_thing_but_not_what_changed_does_not_amend_it(tmp_path):
    """Gmail's MCP tools relabel and delete a sent email by its id; none takes a body: resending amends it."""
    from tests.helpers.chat_logs import tool
    relabel = tool("modify_email", "Modifies email labels", messageId="string",
                   addLabelIds={"type": "array", "items": {"type": "string"}})
    delete = tool("delete_email", "Permanently deletes an email", messageId="string")
    assert _resent_email(tmp_path, relabel, delete) == []
    edit = tool("update_email", "Edits an email", messageId="string", body="string")
    assert _resent_email(tmp_path, relabel, edit)[:1] == [(5, "intervene", "repeated_call")]
