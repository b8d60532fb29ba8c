"""The kit through the official SDKs (openai, anthropic): real request shapes, real SDK errors.

The scripted model sits behind an in-process HTTP server (`reference.providers.server.ScriptedServer`); the loop
talks to it through `openai.OpenAI` / `anthropic.Anthropic` and the kit's provider adapters. A run
through the SDK must be the same run as in process, and a protocol mistake must surface as the
SDK's own `BadRequestError` with the service's text.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from reference import Episode, ProtocolError, Scenario, StopReason, find
from reference.sandbox.grading import run_candidate
from reference.loops.react import react_loop
from reference.providers.adapters import AnthropicModel, OpenAIChatModel, scripted_anthropic_client, sdk_episode
from reference.providers.server import ANTHROPIC_BASE_URL, ScriptedServer
from tests.helpers.targets import load_exercise

WIRES = ["openai-chat", "openai-responses", "anthropic"]
RED_FLAGS = Path(__file__).resolve().parent / "red_flags"


def on_wire(scenario: Scenario, wire: str) -> Scenario:
    return scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})


def in_process_run(name: str, wire: str):
    scenario = on_wire(find(name), wire)
    return react_loop(Episode.from_scenario(scenario), max_steps=scenario.limits.max_steps)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("name", ["happy-path", "paging-legit"])
def test_react_loop_through_the_sdk_is_the_same_run_as_in_process(name, wire):
    expected = in_process_run(name, wire)
    episode, server = sdk_episode(find(name), wire)
    got = react_loop(episode, max_steps=episode.limits.max_steps)
    story = f"scenario `{name}` over {wire} through the SDK"
    assert got.stop_reason is StopReason.COMPLETED, f"{story}: stop reason {got.stop_reason} ({got.detail})"
    assert got.answer == expected.answer, f"{story}: answer {got.answer!r}, in process {expected.answer!r}"
    assert (got.model_calls, got.tool_calls) == (expected.model_calls, expected.tool_calls), \
        f"{story}: {got.model_calls} model calls and {got.tool_calls} tool calls, in process " \
        f"{expected.model_calls} and {expected.tool_calls}"
    assert got.transcript() == expected.transcript(), f"{story}: the conversation (ids included) differs"
    assert (got.usage, got.sim_seconds) == (expected.usage, expected.sim_seconds), \
        f"{story}: usage {got.usage} in {got.sim_seconds} s, in process {expected.usage} in {expected.sim_seconds} s"
    assert [x.status for x in server.exchanges] == [200] * got.model_calls, \
        f"{story}: the server answered {[x.status for x in server.exchanges]}"


def test_the_sdk_sends_what_each_api_expects():
    """Paths, auth headers and body keys as the installed SDKs really send them."""
    seen = {}
    for wire in WIRES:
        episode, server = sdk_episode(find("happy-path"), wire)
        react_loop(episode, max_steps=4)
        seen[wire] = server.exchanges[-1]
    assert [seen[w].path for w in WIRES] == ["/v1/chat/completions", "/v1/responses", "/v1/messages"]
    for wire in WIRES:  # anthropic 2.14 sends Bearer too, not x-api-key
        assert seen[wire].headers["authorization"] == "Bearer loopkit-scripted", f"{wire}: {seen[wire].headers}"
    assert "anthropic-version" in seen["anthropic"].headers
    chat, responses, messages = (seen[w].body for w in WIRES)
    assert [m["role"] for m in chat["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert [i["type"] for i in responses["input"]] == \
        ["message"] * 3 + ["function_call"] * 2 + ["function_call_output"] * 2  # system, user, assistant text
    assert "system" in messages and messages["max_tokens"] > 0 and \
        [b["type"] for b in messages["messages"][-1]["content"]] == ["tool_result", "tool_result"]


FORGOTTEN = {  # the service's text when a tool result answers no tool call (provider-facts.md 4.1-4.3)
    "openai-chat": ["Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    "with 'tool_calls'."],
    "openai-responses": ["No tool call found for function call output with call_id {id}."],
    # which message index Anthropic names for the combined user turn is the wire module's call; the rest is fixed
    "anthropic": ["unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must "
                  "have a corresponding `tool_use` block in the previous message."],
}


def first_call_id(exchange) -> str:
    if "output" in exchange.response:
        return exchange.response["output"][0]["call_id"]
    if "content" in exchange.response:
        return exchange.response["content"][0]["id"]
    return exchange.response["choices"][0]["message"]["tool_calls"][0]["id"]


@pytest.mark.parametrize("wire", WIRES)
def test_forgetting_the_assistant_message_raises_the_sdks_own_bad_request_error(wire):
    forgets = load_exercise(str(RED_FLAGS / "ex01_forgets_assistant_message.py"), "ex01_react_loop").react_loop
    in_process = run_candidate(forgets, "paging-legit", wire=wire).error
    assert isinstance(in_process, ProtocolError), f"{wire}: in process the red flag got {in_process!r}"
    text = in_process.message
    episode, server = sdk_episode(find("paging-legit"), wire)
    import anthropic  # here, not at the top: a process that runs no SDK test does not import them
    import openai

    sdk_error = anthropic.BadRequestError if wire == "anthropic" else openai.BadRequestError
    with pytest.raises(sdk_error) as info:
        forgets(episode, max_steps=8)
    err = info.value
    for fragment in FORGOTTEN[wire]:
        assert fragment.format(id=first_call_id(server.exchanges[0])) in text, f"{wire}: {text!r}"
    assert err.status_code == 400 and [x.status for x in server.exchanges] == [200, 400]
    assert len(server.model.requests) == 1, "the refused request must never reach the model"
    if wire == "anthropic":
        assert err.api_message == text, f"anthropic: {err.api_message!r}, in process {text!r}"
        assert err.body["type"] == "error" and err.body["error"]["type"] == "invalid_request_error", err.body
        assert err.request_id == err.body["request_id"] and text in str(err)
    else:
        assert err.body == {"message": text, "type": "invalid_request_error",
                            "param": "messages.[2].role" if wire == "openai-chat" else "input", "code": None}, err.body
        assert str(err) == f"Error code: 400 - {text}"  # openai 3.57 puts only the message in the text
    if wire == "openai-chat":
        assert text == FORGOTTEN[wire][0]


@pytest.mark.parametrize("wire", WIRES)
def test_tool_choice_none_gets_an_answer_without_tool_calls(wire):
    episode, server = sdk_episode(find("paging-legit"), wire)
    messages = episode.initial_messages()
    turn = episode.model.complete(messages, episode.tools.specs)
    messages.append(turn.message)
    messages += [episode.tools.execute(call) for call in turn.tool_calls]
    final = episode.model.complete(messages, episode.tools.specs, tool_choice="none")
    assert final.tool_calls == () and final.finish_reason == "stop", f"{wire}: {final}"
    assert final.text and final.text.startswith("From what I found so far") and "O-298" in final.text, final.text
    sent = server.exchanges[-1].body
    assert sent["tool_choice"] == ({"type": "none"} if wire == "anthropic" else "none"), sent.get("tool_choice")
    assert sent["tools"], f"{wire}: tools must stay declared (the history holds tool calls)"
    assert [r.tool_choice for r in server.model.requests] == ["auto", "none"]


def test_anthropic_base_url_ending_in_v1_is_a_404_that_says_why():
    server = ScriptedServer(None)  # never reached: the route does not exist
    client = scripted_anthropic_client(server, base_url=ANTHROPIC_BASE_URL + "/v1")
    import anthropic

    with pytest.raises(anthropic.NotFoundError) as info:
        AnthropicModel(client).complete(Episode.from_scenario(find("happy-path")).initial_messages(), [])
    assert server.exchanges[0].path == "/v1/v1/messages"
    assert "must not" in info.value.api_message, info.value.api_message


def test_server_accepts_bearer_or_x_api_key_and_refuses_no_key():
    episode = Episode.from_scenario(find("happy-path"))
    server = ScriptedServer(episode.model)
    body = b'{"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}'
    statuses = [server.handle("POST", "/v1/messages", headers, body)[0]
                for headers in ({"x-api-key": "k"}, {"authorization": "Bearer k"}, {})]
    assert statuses == [200, 200, 401], statuses


def test_adapters_refuse_an_unknown_tool_choice():
    adapter = OpenAIChatModel(client=None)
    with pytest.raises(ValueError, match="tool_choice must be 'auto' or 'none'"):
        adapter.complete([], [], tool_choice="required")
