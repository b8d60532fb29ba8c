"""The protocol invariants as conversations, each with the services' exact refusal text per wire format
(tests/test_protocol.py checks them; tests/test_incremental.py replays them through the incremental builder)."""
from __future__ import annotations

from typing import Any

from reference import AssistantMessage, ProtocolError, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from reference.wire.protocol import check_request

SEARCH = ToolSpec("search_docs", "Search the help centre.",
                  {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
TOOLS = [SEARCH]
START = [SystemMessage("You are a support assistant."), UserMessage("What is the refund policy?")]


def call(n: int) -> ToolCall:
    return ToolCall(f"call_{n}", "search_docs", '{"query": "refund policy"}')


def result(n: int) -> ToolMessage:
    return ToolMessage(f"call_{n}", '{"ok": true, "data": {"text": "30 days."}}')


def turn(*ns: int, text: str | None = None) -> AssistantMessage:
    return AssistantMessage(text, tuple(call(n) for n in ns))


def refusal(messages: list[Any], wire: str, tools: list[ToolSpec] = TOOLS) -> ProtocolError | None:
    try:
        check_request(messages, tools, wire)
    except ProtocolError as err:
        return err
    return None


ACCEPTED = None
O2 = ("An assistant message with 'tool_calls' must be followed by tool messages responding to each "
      "'tool_call_id'. The following tool_call_ids did not have response messages: {}")
A1 = ("messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` "
      "block must have a corresponding `tool_result` block in the next message.")
A3 = ("messages.{}: unexpected `tool_use_id` found in `tool_result` blocks: {}. Each `tool_result` block must "
      "have a corresponding `tool_use` block in the previous message.")
R2 = "No tool output found for function call {}."

# invariant -> (conversation, {wire: exact text, or ACCEPTED with the reason in a comment})
# Message indexes: Chat counts the system message; Anthropic does not (it travels in `system`).
INVARIANTS: dict[str, tuple[list[Any], dict[str, str | None]]] = {
    "tool_result_without_a_tool_call_turn": (START + [result(1)], {
        "openai-chat": "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                       "with 'tool_calls'.",
        "openai-responses": "No tool call found for function call output with call_id call_1.",
        # the user text and the user tool_result are consecutive user turns: combined, the result is block 1
        "anthropic": A3.format("0.content.1", "call_1"),
    }),
    "result_id_not_in_the_previous_turn": (START + [turn(1), result(9)], {
        "openai-chat": "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.",
        "openai-responses": "No tool call found for function call output with call_id call_9.",
        # call_1 is left unanswered too; the kit reports the call side first [assumed order]
        "anthropic": A1.format(1, "call_1"),
    }),
    "extra_result_for_an_unknown_id": (START + [turn(1), result(1), result(9)], {
        "openai-chat": "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.",
        "openai-responses": "No tool call found for function call output with call_id call_9.",
        "anthropic": A3.format("2.content.1", "call_9"),
    }),
    "call_unanswered_before_the_next_user_message": (START + [turn(1), UserMessage("Are you there?")], {
        "openai-chat": O2.format("call_1"),
        "openai-responses": R2.format("call_1"),
        "anthropic": A1.format(1, "call_1"),
    }),
    "call_unanswered_at_the_end_of_the_request": (START + [turn(1)], {
        "openai-chat": O2.format("call_1"),
        "openai-responses": R2.format("call_1"),
        "anthropic": A1.format(1, "call_1"),
    }),
    "parallel_calls_only_the_first_answered": (START + [turn(1, 2), result(1)], {
        "openai-chat": O2.format("call_2"),
        "openai-responses": R2.format("call_2"),
        "anthropic": A1.format(1, "call_2"),
    }),
    "parallel_calls_only_the_first_answered_then_user_text": (START + [turn(1, 2), result(1), UserMessage("?")], {
        "openai-chat": O2.format("call_2"),
        "openai-responses": R2.format("call_2"),
        "anthropic": A1.format(1, "call_2"),
    }),
    "parallel_calls_none_answered": (START + [turn(1, 2), UserMessage("Well?")], {
        "openai-chat": O2.format("call_1, call_2"),
        "openai-responses": R2.format("call_1"),  # one message per missing output: the first
        "anthropic": A1.format(1, "call_1, call_2"),
    }),
    "duplicate_id_across_turns": (START + [turn(1), result(1), turn(1), result(1)], {
        "openai-chat": "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_1', in messages[3] and "
                       "messages[5].",
        "openai-responses": "Duplicate item found with id fc_1. Remove duplicate items from your input and try again.",
        "anthropic": "messages.3.content.0: `tool_use` ids must be unique",
    }),
    "duplicate_id_within_one_turn": (START + [turn(1, 1), result(1), result(1)], {
        "openai-chat": "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_1', in messages[3] and "
                       "messages[4].",
        "openai-responses": "Duplicate item found with id fc_1. Remove duplicate items from your input and try again.",
        "anthropic": "messages.1.content.1: `tool_use` ids must be unique",
    }),
    "results_for_an_earlier_turn_after_a_second_call_turn": (START + [turn(1), turn(2), result(2), result(1)], {
        "openai-chat": O2.format("call_1"),
        # Responses pairs an output with its call by call_id anywhere in `input`: order does not matter
        "openai-responses": ACCEPTED,
        # consecutive assistant turns are combined into one turn, whose two calls are then both answered
        "anthropic": ACCEPTED,
    }),
}
