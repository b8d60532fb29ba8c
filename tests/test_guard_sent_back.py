"""What an answer gave to name a thing by (reference/parts/guards/sent_back.py): a value the tools take back, a
later call's argument or another tool's parameter by its schema, whatever the member holding it is called; a
member's name only at first sight."""
from __future__ import annotations

import pytest

from reference.core.messages import ToolCall
from reference.parts.guards.effects import ToolInfo
from reference.parts.guards.sent_back import id_member, identities, name_words, taken_back
from reference.parts.guards.state import GuardedCall, Memory
from reference.parts.guards.thresholds import Thresholds


def _memory(*tools: ToolInfo) -> Memory:
    return Memory(tools={t.name: t for t in tools}, thresholds=Thresholds())


def _made(tool: str, arguments: dict, answer: object) -> GuardedCall:
    return GuardedCall(step=1, call=ToolCall("c1", tool), action=tool, arguments=arguments, ran=True, writes=True,
                       content=answer)


def _tool(name: str, required: list[str] | None = None, **properties: str) -> ToolInfo:
    parameters: dict = {"type": "object", "properties": {k: {"type": v} for k, v in properties.items()}}
    if required is not None:
        parameters["required"] = required
    return ToolInfo(name, parameters, "")


CREATE = _tool("create_issue", owner="string", repo="string", title="string")
GITHUB = {"id": 2718281801, "number": 4242, "state": "open", "title": "Save button does nothing"}


@pytest.mark.parametrize("edit, taken", [
    (_tool("add_issue_comment", ["owner", "repo", "issue_number", "body"], owner="string", repo="string",
           issue_number="number", body="string"), {"4242"}),  # GitHub MCP: no member of its answer says id
    (_tool("update_issue", issue_id="integer", body="string"), {"2718281801"}),
    (_tool("chat_update", ["channel", "ts"], channel="string", ts="string"), set()),  # no `ts` in this answer
])
def test_a_value_another_tools_parameter_takes_names_the_thing_whatever_its_member_is_called(edit, taken):
    made = _made("create_issue", {"owner": "acme", "repo": "web", "title": "Save button does nothing"}, GITHUB)
    assert taken_back(_memory(CREATE, edit), made) == taken


@pytest.mark.parametrize("answer", [
    "Issue created: {'number': 4242, 'state': 'open', 'title': 'Save button does nothing'}",  # a Python repr
    "Created issue number 4242 in acme/web.",
])
def test_a_value_in_text_is_taken_by_the_word_before_it_as_its_label(answer):
    edit = _tool("add_issue_comment", ["issue_number", "body"], issue_number="integer", body="string")
    made = _made("create_issue", {"owner": "acme", "repo": "web", "title": "Save button does nothing"}, answer)
    assert taken_back(_memory(CREATE, edit), made) == {"4242"}


def test_a_state_word_or_a_short_count_another_tool_takes_names_nothing():
    edit = _tool("set_issue", issue_number="integer", state="string", count="integer")
    made = _made("create_issue", {"title": "Save button"}, {"number": 4242, "state": "open", "count": 3})
    assert taken_back(_memory(CREATE, edit), made) == {"4242"}


def test_a_number_the_edit_types_as_a_number_is_not_taken_from_a_name():
    edit = _tool("add_issue_comment", issue_number="integer")
    made = _made("create_issue", {"title": "Save button"}, {"number": "WEB-4242"})
    assert taken_back(_memory(CREATE, edit), made) == frozenset()


def test_a_member_named_as_an_id_names_the_thing_at_first_sight():
    made = _made("create_issue", {"title": "Save button"}, {"TicketID": 88412, "state": "open"})
    assert identities(_memory(CREATE), made) == {"88412"}


def test_a_name_is_read_by_its_words_whatever_joins_them():
    assert name_words("issue_number") == name_words("issueNumber") == name_words("IssueNumber") \
        == name_words("issue-number") == ("issue", "number")
    assert name_words("TicketID") == ("ticket", "id")
    assert name_words("númeroIncidencia") == name_words("número_incidencia") == ("número", "incidencia")
    assert all(map(id_member, ["id", "@id", "uuid", "ticket_id", "branchId", "TicketID", "sys_id"]))
    assert not any(map(id_member, ["valid", "paid", "number", "key", "ts", "uid", "android"]))
