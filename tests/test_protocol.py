"""The protocol check: every invariant, on every wire format where it applies, with the exact text.

The texts are the services' own HTTP 400 messages, typos included ("preceeding"), as listed with their
public sources in docs/protocol.md and ../shared/notes/provider-facts.md (beside the repository) section 4. Where a format
has no such rule the table says why, and the test asserts the request is accepted.
"""
from __future__ import annotations

from typing import Any

import pytest

from reference import AssistantMessage, ProtocolError, ToolCall, ToolMessage, ToolSpec, UserMessage
from reference.wire.protocol import WIRE_FORMATS, check_required_fields, check_wire_body, to_wire
from tests.helpers.protocol_cases import A1, ACCEPTED, INVARIANTS, SEARCH, START, TOOLS, refusal, result, turn


@pytest.mark.parametrize("wire", WIRE_FORMATS)
@pytest.mark.parametrize("invariant", sorted(INVARIANTS))
def test_each_protocol_violation_is_refused_with_the_services_exact_text(invariant, wire):
    messages, texts = INVARIANTS[invariant]
    expected = texts[wire]
    err = refusal(messages, wire)
    if expected is ACCEPTED:
        assert err is None, f"{wire}: `{invariant}` is accepted by the real service, but the kit refused: {err}"
        return
    assert err is not None, f"{wire}: `{invariant}` went through; the service refuses it with: {expected}"
    assert err.message == expected, f"{wire}: `{invariant}`:\n got      {err.message}\n expected {expected}"
    assert err.status_code == 400 and err.wire == wire


def test_a_well_formed_conversation_is_accepted_everywhere():
    messages = START + [turn(1, 2, text="Searching twice."), result(1), result(2), AssistantMessage("30 days."),
                        UserMessage("And for damaged items?"), turn(3), result(3)]
    for wire in WIRE_FORMATS:
        assert refusal(messages, wire) is None, f"{wire}: refused a valid conversation: {refusal(messages, wire)}"


# ---------------------------------------------------------------- Chat Completions only

def test_chat_error_envelope_carries_param_and_code_like_the_service():
    err = refusal(START + [result(1)], "openai-chat")
    assert err.body == {"error": {"message": err.message, "type": "invalid_request_error",
                                  "param": "messages.[2].role", "code": None}}, err.body
    err = refusal(START + [turn(1, 2), result(1), UserMessage("?")], "openai-chat")
    assert err.param == "messages.[2].role", f"O2 names the assistant message [assumed], got {err.param}"


def test_chat_refuses_an_empty_tool_calls_list():
    # AssistantMessage(None, ()) is how the kit writes the common framework bug `tool_calls: []`
    messages = [UserMessage("Hi"), AssistantMessage(None, ()), UserMessage("Hello?")]
    assert to_wire(messages, TOOLS, "openai-chat")["messages"][1]["tool_calls"] == []
    err = refusal(messages, "openai-chat")
    assert err is not None and err.message == (
        "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty "
        "array instead."), err
    assert (err.param, err.code) == ("messages[1].tool_calls", "empty_array")


def test_chat_refuses_an_empty_messages_list():
    err = refusal([], "openai-chat")
    assert err is not None and err.message == ("Invalid 'messages': empty array. Expected an array with minimum "
                                               "length 1, but got an empty array instead."), err


def test_chat_refuses_an_empty_function_name_in_the_history():
    messages = START + [AssistantMessage(None, (ToolCall("call_1", "", "{}"),)), result(1)]
    err = refusal(messages, "openai-chat")
    assert err is not None and err.message == (
        "Invalid 'messages[2].tool_calls[0].function.name': empty string. Expected a string with minimum length 1, "
        "but got an empty string instead."), err


# ---------------------------------------------------------------- tool names, every format

NAME_PATTERN = {
    "openai-chat": "Invalid 'tools[1].function.name': string does not match pattern. Expected a string that "
                   "matches the pattern '^[a-zA-Z0-9_-]+$'.",
    "openai-responses": "Invalid 'tools[1].name': string does not match pattern. Expected a string that matches "
                        "the pattern '^[a-zA-Z0-9_-]+$'.",
    "anthropic": "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
}


@pytest.mark.parametrize("wire", WIRE_FORMATS)
@pytest.mark.parametrize("bad_name", ["search docs", "search.docs", "搜索"])
def test_tool_names_outside_the_pattern_are_refused(wire, bad_name):
    err = refusal(START, wire, [SEARCH, ToolSpec(bad_name)])
    assert err is not None and err.message == NAME_PATTERN[wire], f"{wire}: tool name {bad_name!r}: {err}"


@pytest.mark.parametrize("wire,longest,too_long", [
    ("openai-chat", 64, "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length "
                        "64, but got a string with length 65 instead."),
    ("openai-responses", 64, "Invalid 'tools[0].name': string too long. Expected a string with maximum length 64, "
                             "but got a string with length 65 instead."),
    ("anthropic", 128, "tools.0.custom.name: String should have at most 128 characters"),
])
def test_tool_names_longer_than_the_limit_are_refused(wire, longest, too_long):
    assert refusal(START, wire, [ToolSpec("a" * longest)]) is None, f"{wire}: {longest} characters is allowed"
    err = refusal(START, wire, [ToolSpec("a" * (longest + 1))])
    assert err is not None and err.message == too_long.replace("65", str(longest + 1)), f"{wire}: {err}"


def test_openai_formats_refuse_an_empty_tool_name():
    assert refusal(START, "openai-chat", [ToolSpec("")]).message == (
        "Invalid 'tools[0].function.name': empty string. Expected a string with minimum length 1, but got an "
        "empty string instead.")
    assert refusal(START, "openai-responses", [ToolSpec("")]).message == (
        "Invalid 'tools[0].name': empty string. Expected a string with minimum length 1, but got an empty "
        "string instead.")


# ---------------------------------------------------------------- Anthropic only

def test_anthropic_results_must_open_the_next_user_message():
    # the kit's way to write it: a user note appended between the call and its result
    messages = START + [turn(1), UserMessage("Note: be brief."), result(1)]
    err = refusal(messages, "anthropic")
    assert err is not None and err.message == A1.format(1, "call_1"), f"text before the result: {err}"
    # the same, as one wire message with the text block first (what an SDK user would send)
    body = to_wire(START + [turn(1)], TOOLS, "anthropic")
    body["messages"].append({"role": "user", "content": [
        {"type": "text", "text": "Here are the results:"},
        {"type": "tool_result", "tool_use_id": "call_1", "content": "30 days."}]})
    with pytest.raises(ProtocolError) as info:
        check_wire_body(body, "anthropic")
    assert info.value.message == A1.format(1, "call_1"), "the API does not look past a leading text block"


def test_anthropic_accepts_text_after_the_results():
    assert refusal(START + [turn(1), result(1), UserMessage("Be brief.")], "anthropic") is None
    body = to_wire(START + [turn(1)], TOOLS, "anthropic")
    body["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "30 days."}, {"type": "text", "text": "Brief."}]})
    check_wire_body(body, "anthropic")


def test_anthropic_accepts_parallel_results_split_over_consecutive_user_messages():
    # "Consecutive `user` or `assistant` turns in your request will be combined into a single turn."
    body = to_wire(START + [turn(1, 2)], TOOLS, "anthropic")
    body["messages"] += [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"call_{n}",
                                                       "content": "30 days."}]} for n in (1, 2)]
    check_wire_body(body, "anthropic")


def test_anthropic_refuses_tool_blocks_when_no_tools_are_defined():
    for messages in (START + [turn(1), result(1)], START + [result(1)]):
        err = refusal(messages, "anthropic", tools=[])
        assert err is not None and err.message == \
            "Requests which include `tool_use` or `tool_result` blocks must define tools.", err
        assert err.body == {"type": "error", "error": {"type": "invalid_request_error", "message": err.message}}
    for wire in ("openai-chat", "openai-responses"):
        assert refusal(START + [turn(1), result(1)], wire, tools=[]) is None, \
            f"{wire} accepts a tool-call history without tools"


def test_anthropic_refuses_duplicate_tool_names_and_non_object_input():
    assert refusal(START, "anthropic", [SEARCH, SEARCH]).message == "tools: Tool names must be unique."
    messages = START + [AssistantMessage(None, (ToolCall("call_1", "search_docs", "[1, 2]"),)), result(1)]
    assert refusal(messages, "anthropic").message == \
        "messages.1.content.0.tool_use.input: Input should be a valid dictionary"


# ---------------------------------------------------------------- rules on the body as sent (docs/protocol.md)

def sent(wire: str, messages: list[Any] = START, tools: list[ToolSpec] = TOOLS) -> dict[str, Any]:
    return to_wire(messages, tools, wire)


def refused(body: dict[str, Any], wire: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        check_wire_body(body, wire)
    return info.value


def test_chat_refuses_what_the_service_refuses_in_a_message_as_sent():
    body = sent("openai-chat", START + [turn(1), result(1)])
    body["messages"][2]["tool_calls"][0]["function"]["arguments"] = {"query": "refund"}
    err = refused(body, "openai-chat")
    assert (err.message, err.param, err.code) == (
        "Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object "
        "instead.", "messages[2].tool_calls[0].function.arguments", "invalid_type")
    body = sent("openai-chat", START + [AssistantMessage("ok"), UserMessage("and?")])
    body["messages"][2]["content"] = None  # no tool_calls: not the empty-array text the kit's own writer gets
    err = refused(body, "openai-chat")
    assert (err.message, err.param, err.code) == ("Invalid value for 'content': expected a string, got null.",
                                                  "messages.[2].content", None)
    body = sent("openai-chat", START + [turn(1), result(1)])
    del body["messages"][3]["tool_call_id"]
    err = refused(body, "openai-chat")
    assert (err.message, err.param) == ("Missing parameter 'tool_call_id': messages with role 'tool' must have a "
                                        "'tool_call_id'.", "messages.[3].tool_call_id")
    body = sent("openai-chat", START + [turn(1), result(1)])
    body["messages"][3]["content"] = {"ok": True}
    err = refused(body, "openai-chat")
    assert (err.message, err.param, err.code) == (
        "Invalid type for 'messages[3].content': expected one of a string or array of objects, but got an object "
        "instead.", "messages[3].content", "invalid_type")


def test_chat_refuses_a_tool_description_over_1024_characters():
    err = refusal(START, "openai-chat", [ToolSpec("search_docs", "x" * 1103)])
    assert (err.message, err.param, err.code) == (
        "Invalid 'tools[0].function.description': string too long. Expected a string with maximum length 1024, "
        "but got a string with length 1103 instead.", "tools[0].function.description", "string_above_max_length")
    assert refusal(START, "openai-chat", [ToolSpec("search_docs", "x" * 1024)]) is None


def test_responses_refuses_role_tool():
    body = sent("openai-responses", START + [turn(1)])
    body["input"].append({"role": "tool", "content": "30 days."})
    err = refused(body, "openai-responses")
    assert (err.message, err.param, err.code) == (
        "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
        "input[3].role", "invalid_value")


def test_anthropic_refuses_what_the_service_refuses_in_a_message_as_sent():
    bad_id = ToolCall("call.1", "search_docs", "{}")
    err = refusal(START + [AssistantMessage(None, (bad_id,)), ToolMessage("call.1", "30 days.")], "anthropic")
    assert err.message == "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    body = sent("anthropic", START + [AssistantMessage("ok"), UserMessage("and?")])
    body["messages"][1]["content"] = []
    assert refused(body, "anthropic").message == \
        "messages.1: all messages must have non-empty content except for the optional final assistant message"
    body["messages"] = body["messages"][:2]  # an empty final assistant message is a prefill: accepted
    check_wire_body(body, "anthropic")
    body = sent("anthropic", START + [AssistantMessage("ok"), UserMessage("")])
    assert refused(body, "anthropic").message == "messages: text content blocks must be non-empty"
    body = sent("anthropic", START + [AssistantMessage("ok"), UserMessage("  ")])
    assert refused(body, "anthropic").message == "messages: text content blocks must contain non-whitespace text"


def test_anthropic_refuses_roles_system_and_tool_inside_messages():
    body = sent("anthropic")
    body["messages"].insert(0, {"role": "system", "content": "Be brief."})
    assert refused(body, "anthropic").message == "role 'system' is not supported on this model"
    body = sent("anthropic", START + [turn(1)])
    body["messages"].append({"role": "tool", "tool_call_id": "call_1", "content": "30 days."})
    assert refused(body, "anthropic").message == (
        'messages: Unexpected role "tool". Allowed roles are "user" or "assistant". For instructions on how to use '
        "tools, see https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview.")


def test_anthropic_max_tokens_is_required_on_raw_http():
    with pytest.raises(ProtocolError, match=r"^max_tokens: Field required$"):
        check_required_fields(sent("anthropic"), "anthropic")
    check_required_fields({**sent("anthropic"), "max_tokens": 64}, "anthropic")
    check_required_fields(sent("openai-chat"), "openai-chat")  # OpenAI's output limit is optional
