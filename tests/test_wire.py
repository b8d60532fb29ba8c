"""Wire formats: kit -> wire -> kit round trips, and wire bodies that the official SDK types accept.

The SDKs are imported here and only here: the kit itself never imports them on the demo path
(importing both costs about 2 s). Pydantic validates an SDK `TypedDict` loosely by default (unknown
keys are dropped, `Iterable` fields are only checked when iterated), so `sdk_validator` tightens the
schema: unknown keys are errors and every list is checked, in strict mode.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter
from pydantic_core import SchemaValidator, ValidationError

from reference import AssistantMessage, SystemMessage, ToolCall, ToolMessage, ToolSpec, Turn, Usage, UserMessage
from reference.wire.protocol import WIRE_FORMATS, check_request, to_wire
from reference.wire import anthropic_messages, openai_chat, openai_responses


MODULES = {"openai-chat": openai_chat, "openai-responses": openai_responses, "anthropic": anthropic_messages}
LOSES_IS_ERROR = ("openai-chat", "openai-responses")  # no error flag on a tool result in OpenAI's formats


def arguments(**values: Any) -> str:
    """Arguments as the Anthropic SDK renders its `input` object (json.dumps defaults), so that the
    text survives the Anthropic round trip byte for byte; see the normalisation test below."""
    return json.dumps(values, ensure_ascii=False)


WEATHER = ToolSpec("get_weather", "Weather forecast for a city on a date.",
                   {"type": "object", "properties": {"city": {"type": "string"}, "date": {"type": "string"}},
                    "required": ["city", "date"]})
FLIGHTS = ToolSpec("search_flights", "Flights between two airports on a date.",
                   {"type": "object", "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}},
                    "required": ["origin", "destination"]})
TOOLS = [WEATHER, FLIGHTS]

WEATHER_CALL = ToolCall("call_w1", "get_weather", arguments(city="Shanghai", date="2026-12-01"))
FLIGHTS_CALL = ToolCall("call_f1", "search_flights", arguments(origin="PEK", destination="SHA"))
WEATHER_OK = ToolMessage("call_w1", '{"ok": true, "data": {"forecast": "light rain"}}')
FLIGHTS_OK = ToolMessage("call_f1", '{"ok": true, "data": {"flights": ["MU5138"]}}')
FLIGHTS_FAILED = ToolMessage("call_f1", '{"ok": false, "error_type": "unavailable", "retryable": true, '
                                        '"message": "Service temporarily unavailable."}', is_error=True)
START = [SystemMessage("You are a travel assistant."), UserMessage("Weather and flights for tomorrow?")]
ANSWER = AssistantMessage("Light rain in Shanghai; MU5138 leaves PEK at 08:00.")

CONVERSATIONS = {
    "parallel_calls": START + [AssistantMessage(None, (WEATHER_CALL, FLIGHTS_CALL)), WEATHER_OK, FLIGHTS_OK, ANSWER],
    "text_with_calls": START + [AssistantMessage("I'll check the forecast and the flights.",
                                                 (WEATHER_CALL, FLIGHTS_CALL)), WEATHER_OK, FLIGHTS_OK, ANSWER],
    "error_result": START + [AssistantMessage(None, (WEATHER_CALL, FLIGHTS_CALL)), WEATHER_OK, FLIGHTS_FAILED,
                             AssistantMessage("Light rain; the flight search is down, try again later.")],
    "two_rounds": START + [AssistantMessage(None, (WEATHER_CALL,)), WEATHER_OK,
                           AssistantMessage("Now the flights.", (FLIGHTS_CALL,)), FLIGHTS_OK, ANSWER],
}


def without_error_flags(messages: list[Any]) -> list[Any]:
    return [ToolMessage(m.call_id, m.content) if isinstance(m, ToolMessage) else m for m in messages]


# ---------------------------------------------------------------- kit -> wire -> kit

@pytest.mark.parametrize("wire", WIRE_FORMATS)
@pytest.mark.parametrize("conversation", ["parallel_calls", "text_with_calls", "two_rounds"])
def test_round_trip_through_the_wire_is_lossless(wire, conversation):
    messages = CONVERSATIONS[conversation]
    body = check_request(messages, TOOLS, wire)  # also a valid request
    back, tools = MODULES[wire].from_request(json.loads(json.dumps(body)))  # through real JSON text
    assert back == messages, f"{wire}: `{conversation}` came back changed:\n{back}\nexpected\n{messages}"
    assert tools == TOOLS, f"{wire}: the tool specs came back changed: {tools}"


@pytest.mark.parametrize("wire", WIRE_FORMATS)
def test_error_results_round_trip_and_only_openai_formats_drop_the_is_error_flag(wire):
    messages = CONVERSATIONS["error_result"]
    back, _ = MODULES[wire].from_request(json.loads(json.dumps(check_request(messages, TOOLS, wire))))
    if wire in LOSES_IS_ERROR:
        # The one known loss: OpenAI's tool results have no error flag, so is_error comes back False.
        # The failure itself survives, in the content the model reads ("ok": false, error_type, ...).
        assert back == without_error_flags(messages), f"{wire}: more than is_error was lost: {back}"
        failed = next(m for m in back if isinstance(m, ToolMessage) and m.call_id == "call_f1")
        assert failed.is_error is False and '"ok": false' in failed.content, \
            f"{wire}: expected the flag dropped and the failure kept in the text, got {failed}"
    else:
        assert back == messages, f"{wire}: the error result came back changed: {back}"
        assert to_wire(messages, TOOLS, wire)["messages"][2]["content"][1]["is_error"] is True


def test_anthropic_parallel_results_share_one_user_message_as_the_api_requires():
    body = to_wire(CONVERSATIONS["parallel_calls"], TOOLS, "anthropic")
    roles = [(m["role"], [b["type"] for b in m["content"]]) for m in body["messages"]]
    assert roles == [("user", ["text"]), ("assistant", ["tool_use", "tool_use"]),
                     ("user", ["tool_result", "tool_result"]), ("assistant", ["text"])], roles
    assert body["system"] == "You are a travel assistant.", "the system prompt travels beside the messages"


def test_anthropic_carries_arguments_as_an_object_so_their_spacing_is_normalised():
    compact = ToolCall("toolu_01", "get_weather", '{"city":"Shanghai","date":"2026-12-01"}')
    messages = START + [AssistantMessage(None, (compact,)), ToolMessage("toolu_01", "{}")]
    back, _ = anthropic_messages.from_request(to_wire(messages, TOOLS, "anthropic"))
    call = back[2].tool_calls[0]
    assert json.loads(call.arguments) == json.loads(compact.arguments), "the arguments' meaning must survive"
    assert call.arguments == '{"city": "Shanghai", "date": "2026-12-01"}', \
        f"Anthropic sends `input` as an object; the kit's text form is json.dumps of it, got {call.arguments!r}"


def test_responses_function_call_items_get_fc_ids_derived_from_the_call_id():
    items = to_wire(CONVERSATIONS["parallel_calls"], TOOLS, "openai-responses")["input"]
    calls = [i for i in items if i["type"] == "function_call"]
    assert [(c["id"], c["call_id"]) for c in calls] == [("fc_w1", "call_w1"), ("fc_f1", "call_f1")], \
        "function_call item ids must begin with 'fc' (the API refuses others) and be unique"


# ---------------------------------------------------------------- request bodies vs the SDK types

def _tightened(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: _tightened(v) for k, v in schema.items()}
        if out.get("type") == "typed-dict":
            out["extra_behavior"] = "forbid"  # an unknown key is a typo, not something to drop
        if out.get("type") == "generator":
            out["type"] = "list"  # Iterable[...] is validated lazily by default: check it now
        return out
    if isinstance(schema, list):
        return [_tightened(v) for v in schema]
    return schema


@lru_cache(maxsize=None)
def sdk_validator(tp: Any) -> SchemaValidator:
    return SchemaValidator(_tightened(TypeAdapter(tp).core_schema))


def sdk_errors(tp: Any, value: Any) -> str | None:
    try:
        sdk_validator(tp).validate_python(value, strict=True)
    except ValidationError as exc:
        wanted = [e for e in exc.errors() if e["type"] in ("extra_forbidden", "missing")] or exc.errors()
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in wanted[:6])
    return None


@lru_cache(maxsize=None)
def sdk_params(wire: str) -> tuple[str, Any, Any, Any, dict[str, Any]]:
    """(key of the list in the body, item type, tool type, whole-request type, extra fields). The SDKs are
    imported here, on first use, so that a process that runs none of these tests does not pay for them."""
    import anthropic.types as anthropic_types
    import anthropic.types.message_create_params as anthropic_create
    import openai.types.chat as chat_types
    import openai.types.chat.completion_create_params as chat_create
    import openai.types.responses as responses_types
    import openai.types.responses.response_create_params as responses_create

    return {
        "openai-chat": ("messages", chat_types.ChatCompletionMessageParam, chat_types.ChatCompletionFunctionToolParam,
                        chat_create.CompletionCreateParamsNonStreaming, {"model": "gpt-4o"}),
        "openai-responses": ("input", responses_types.ResponseInputItemParam, responses_types.FunctionToolParam,
                             responses_create.ResponseCreateParamsNonStreaming, {"model": "gpt-4o"}),
        "anthropic": ("messages", anthropic_types.MessageParam, anthropic_types.ToolParam,
                      anthropic_create.MessageCreateParamsNonStreaming,
                      {"model": "claude-sonnet-4-5", "max_tokens": 1024}),
    }[wire]


@pytest.mark.parametrize("wire", WIRE_FORMATS)
@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
def test_request_bodies_validate_against_the_official_sdk_param_types(wire, conversation):
    key, item_type, tool_type, request_type, extra = sdk_params(wire)
    body = to_wire(CONVERSATIONS[conversation], TOOLS, wire)
    for i, item in enumerate(body[key]):
        problem = sdk_errors(item_type, item)
        assert problem is None, f"{wire}: {key}[{i}] = {item} is not a valid {item_type}: {problem}"
    for i, tool in enumerate(body["tools"]):
        problem = sdk_errors(tool_type, tool)
        assert problem is None, f"{wire}: tools[{i}] = {tool} is not a valid {tool_type.__name__}: {problem}"
    problem = sdk_errors(request_type, {**body, **extra})
    assert problem is None, f"{wire}: the whole request is not a valid {request_type.__name__}: {problem}"


@pytest.mark.parametrize("wire", WIRE_FORMATS)
def test_the_sdk_check_catches_a_misspelt_key(wire):
    key, item_type, *_ = sdk_params(wire)
    item = dict(to_wire(CONVERSATIONS["parallel_calls"], TOOLS, wire)[key][-1])
    item["tool_call_idd"] = "call_x"
    assert sdk_errors(item_type, item) is not None, f"{wire}: a misspelt key went through the SDK check: {item}"


# ---------------------------------------------------------------- responses vs the SDK models

TURNS = {
    "answer": Turn("Light rain in Shanghai.", (), "stop", Usage(812, 9)),
    "parallel_calls": Turn(None, (WEATHER_CALL, FLIGHTS_CALL), "tool_calls", Usage(640, 58)),
    "text_with_call": Turn("Let me check the forecast.", (WEATHER_CALL,), "tool_calls", Usage(640, 31)),
    "truncated": Turn("The forecast for tomorrow is", (), "length", Usage(700, 16)),
}


def sdk_response_model(wire: str) -> type[BaseModel]:
    """The SDK's model of a whole response (imported on first use, as in sdk_params)."""
    if wire == "anthropic":
        from anthropic.types import Message
        return Message
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response
    return ChatCompletion if wire == "openai-chat" else Response


def unknown_fields(value: Any, path: str = "") -> list[str]:
    """Fields the SDK model kept as extras (its models allow them): a misspelt or invented field."""
    if isinstance(value, BaseModel):
        found = [f"{path}.{k}" for k in (value.model_extra or {})]
        for name in type(value).model_fields:
            found += unknown_fields(getattr(value, name), f"{path}.{name}")
        return found
    if isinstance(value, (list, tuple)):
        return [f for i, v in enumerate(value) for f in unknown_fields(v, f"{path}[{i}]")]
    return []


@pytest.mark.parametrize("wire", WIRE_FORMATS)
@pytest.mark.parametrize("kind", sorted(TURNS))
def test_responses_parse_strictly_with_the_sdk_models_and_round_trip(wire, kind):
    turn = TURNS[kind]
    body = json.loads(json.dumps(MODULES[wire].response_from_turn(turn)))
    model_type = sdk_response_model(wire)
    try:
        parsed = model_type.model_validate(body, strict=True)
    except ValidationError as exc:
        pytest.fail(f"{wire}: `{kind}` response is not a valid {model_type.__name__} in strict mode:\n{exc}")
    assert unknown_fields(parsed) == [], f"{wire}: fields the SDK does not know: {unknown_fields(parsed)}"
    back = MODULES[wire].turn_from_response(body)
    assert back == turn, f"{wire}: `{kind}` came back as {back}"
    via_sdk = MODULES[wire].turn_from_response(parsed.model_dump(mode="json"))
    assert via_sdk == turn, f"{wire}: what the SDK parsed reads back as {via_sdk}, not {turn}"


def test_finish_reasons_map_to_each_providers_own_words():
    words = {kind: (openai_chat.response_from_turn(t)["choices"][0]["finish_reason"],
                    openai_responses.response_from_turn(t)["status"],
                    anthropic_messages.response_from_turn(t)["stop_reason"]) for kind, t in TURNS.items()}
    assert words == {"answer": ("stop", "completed", "end_turn"),
                     "parallel_calls": ("tool_calls", "completed", "tool_use"),
                     "text_with_call": ("tool_calls", "completed", "tool_use"),
                     "truncated": ("length", "incomplete", "max_tokens")}, words
