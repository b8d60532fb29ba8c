"""One object per wire format: everything a server or a client needs to know about one service's API.

    fmt = wire_format("anthropic")          # or ROUTES["/v1/messages"]
    fmt.check_request(body)                 # the service's own checks, raising ProtocolError with its text
    messages, tools = fmt.read_request(body)
    choice = fmt.tool_choice(body)          # what the request allows the turn to do
    payload = fmt.response(turn, number=7, model="m", created=0, body=body)
    fmt.events(payload, body)               # the same answer as the service's server-sent events
    fmt.error_body("rate_limit", "...")     # an error in the service's own envelope

Code outside `reference/wire/` asks these objects instead of branching on a format's name. The
conversions and checks themselves live in the format's module (openai_chat.py, openai_responses.py,
anthropic_messages.py); tool choices in tool_choice.py; streams in streaming.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..core.errors import ENVELOPES, ProtocolError, ProviderError
from ..core.messages import Message, SystemMessage, ToolSpec
from ..core.model import Turn
from . import anthropic_messages, openai_chat, openai_responses, streaming, tool_choice
from .tool_choice import ToolChoice

# what each service calls a kind of error (OpenAI's 401 and 404 are invalid_request_error too)
OPENAI_TYPES = {"rate_limit": "requests", "server": "server_error", "server_error": "server_error",
                "overloaded": "server_error", "timeout": "timeout"}
OPENAI_CODES = {"rate_limit": "rate_limit_exceeded"}  # a scripted provider failure's code
ANTHROPIC_TYPES = {"server": "api_error", "server_error": "api_error", "request_too_large": "request_too_large",
                   "not_found": "not_found_error", "authentication": "authentication_error",
                   "rate_limit": "rate_limit_error", "overloaded": "overloaded_error", "timeout": "timeout_error"}
KIT = "loopkit scripted server: "  # a text that starts so is the kit's own, not a provider's


@dataclass(frozen=True)
class WireFormat:
    name: str
    path: str  # the route, under a base_url without /v1 (the Anthropic SDK's convention)
    module: ModuleType
    id_prefix: str  # of a response's id
    call_id_prefix: str  # of a tool call's id, as the service writes it
    request_id_header: str  # the header each SDK reads into err.request_id
    conversation: str  # the request field that carries the conversation
    call_id_chars: int = 24  # random characters after `call_id_prefix`
    arguments_are_objects: bool = False  # tool input travels as a JSON object, not as JSON text
    system_apart: bool = False  # the system prompt travels beside the conversation, not in it
    sdk: str = "openai"  # the official SDK package that speaks this format
    sdk_clients: tuple[str, str] = ("OpenAI", "AsyncOpenAI")  # its client classes, sync and async
    sdk_base_path: str = "/v1"  # what the SDK's base_url ends with (Anthropic's paths already start with /v1/)

    # -- requests --------------------------------------------------------------------------------
    def normalised(self, body: dict[str, Any]) -> dict[str, Any]:
        """The request in the one shape `read_request` and the checks read."""
        return body

    def expand(self, body: dict[str, Any], store: Any) -> dict[str, Any]:
        """The request with what it points to in the server's `store` written out (Responses only)."""
        return body

    def check_required(self, body: dict[str, Any]) -> None:
        """Top-level fields the service requires (an SDK always sends them; raw HTTP can forget them)."""
        if "model" not in body:  # transitive-bullshit/agentic#530 (2023): param and code null
            raise ProtocolError(self.name, "you must provide a model parameter")
        if self.conversation not in body:
            raise ProtocolError(self.name, f"Missing required parameter: '{self.conversation}'.", self.conversation,
                                "missing_required_parameter")

    def check_request(self, body: dict[str, Any]) -> None:
        self.check_required(body)
        self.module.check(body)

    def read_request(self, body: dict[str, Any]) -> tuple[list[Message], list[ToolSpec]]:
        return self.module.from_request(body)

    def tool_choice(self, body: dict[str, Any]) -> ToolChoice | None:
        """What the request allows (None: a tool_choice the kit does not understand)."""
        return tool_choice.parse(self.name, body)

    # -- answers ---------------------------------------------------------------------------------
    def response(self, turn: Turn, *, number: int, model: str, created: int, body: dict[str, Any],
                 previous: str | None = None) -> dict[str, Any]:
        return self.module.response_from_turn(turn, response_id=f"{self.id_prefix}{number:04d}", model=model,
                                              created=created)

    def events(self, payload: dict[str, Any], body: dict[str, Any]) -> list[streaming.Event]:
        return streaming.sse_events(self.name, payload)

    def error_body(self, kind: str, message: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
        """An error in the service's envelope; `kind` is one of rate_limit, server, invalid_request, ..."""
        return {"error": {"message": message, "type": OPENAI_TYPES.get(kind, "invalid_request_error"),
                          "param": param, "code": code}}

    def provider_error(self, err: ProviderError) -> dict[str, Any]:
        """A scripted provider failure (429, 500, 529, a timeout) as the service sends it."""
        return self.error_body(err.kind, err.message, None, OPENAI_CODES.get(err.kind))

    def kit_error(self, kind: str, message: str) -> dict[str, Any]:
        """An error in the service's envelope, with a text that says it comes from the kit."""
        return self.error_body(kind, KIT + message)

    def with_request_id(self, error: dict[str, Any], request_id: str) -> dict[str, Any]:
        """The error envelope as sent (OpenAI's carries the request id in a header only)."""
        return error


@dataclass(frozen=True)
class ChatCompletions(WireFormat):
    def check_request(self, body: dict[str, Any]) -> None:
        super().check_request(body)
        if body.get("tool_choice") is not None and not body.get("tools"):
            # gptel-quick#13, writer-framework#1013; param and code [assumed]
            raise ProtocolError(self.name, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when "
                                           "'tools' are specified.", "tool_choice")

    def events(self, payload: dict[str, Any], body: dict[str, Any]) -> list[streaming.Event]:
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return streaming.sse_events(self.name, payload, include_usage=include_usage)


@dataclass(frozen=True)
class Responses(WireFormat):
    def normalised(self, body: dict[str, Any]) -> dict[str, Any]:
        """`input` may be a plain string: one user message."""
        if isinstance(body.get("input"), str):
            return {**body, "input": [{"type": "message", "role": "user", "content": body["input"]}]}
        return body

    def expand(self, body: dict[str, Any], store: Any) -> dict[str, Any]:
        """`previous_response_id`'s conversation put before the input, and each `item_reference` replaced by
        the item it names (`store.get(response_id)`, `store.item(item_id)`, None when unknown)."""
        items: list[Any] = []
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "item_reference":
                found = store.item(item.get("id"))
                if found is None:  # anomalyco/opencode#7724, can1357/oh-my-pi#41 (HTTP 404); param [assumed]
                    raise _status(404, ProtocolError(self.name, f"Item with id '{item.get('id')}' not found. Items are "
                                                     "not persisted when `store` is set to false. Try again with "
                                                     "`store` set to true, or remove this item from your input."))
                item = found
            items.append(item)
        previous = body.get("previous_response_id")
        if previous is not None:
            before = store.get(previous)
            if before is None:  # quoted in public client code (docs/protocol.md); not a kit text
                raise ProtocolError(self.name, f"Previous response with id '{previous}' not found.",
                                    "previous_response_id", "previous_response_not_found")
            items = before + items
        return {**body, "input": items} if "input" in body or previous is not None else body

    def check_required(self, body: dict[str, Any]) -> None:
        """`input` is optional (a request may continue `previous_response_id`); the service's text for a
        missing `model` on this API is not known, so the kit does not make one up."""

    def read_request(self, body: dict[str, Any]) -> tuple[list[Message], list[ToolSpec]]:
        messages, tools = self.module.from_request({**body, "input": body.get("input") or []})
        if body.get("instructions"):  # the system prompt travels beside the input
            messages.insert(0, SystemMessage(body["instructions"]))
        return messages, tools

    def response(self, turn: Turn, *, number: int, model: str, created: int, body: dict[str, Any],
                 previous: str | None = None) -> dict[str, Any]:
        payload = super().response(turn, number=number, model=model, created=created, body=body)
        # the Responses API echoes the request's settings
        payload.update(tools=body.get("tools", []), tool_choice=body.get("tool_choice", "auto"),
                       parallel_tool_calls=body.get("parallel_tool_calls", True), previous_response_id=previous)
        return payload


@dataclass(frozen=True)
class Messages(WireFormat):
    def check_required(self, body: dict[str, Any]) -> None:
        # the service's pydantic-style text, as for max_tokens ("max_tokens: Field required", docs/protocol.md)
        for name in ("max_tokens", "messages", "model"):  # which one the service names first: [assumed]
            if name not in body:
                raise ProtocolError(self.name, f"{name}: Field required")

    def error_body(self, kind: str, message: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
        return {"type": "error", "error": {"type": ANTHROPIC_TYPES.get(kind, "invalid_request_error"),
                                           "message": message}}

    def with_request_id(self, error: dict[str, Any], request_id: str) -> dict[str, Any]:
        return {**error, "request_id": request_id}  # Anthropic's envelope carries it (provider-facts.md 4.3)


CHAT = ChatCompletions("openai-chat", "/v1/chat/completions", openai_chat, "chatcmpl-loopkit", "call_",
                       "x-request-id", "messages")
RESPONSES = Responses("openai-responses", "/v1/responses", openai_responses, "resp_loopkit", "call_",
                      "x-request-id", "input")
MESSAGES = Messages("anthropic", "/v1/messages", anthropic_messages, "msg_loopkit", "toolu_01", "request-id",
                    "messages", call_id_chars=22, arguments_are_objects=True, system_apart=True, sdk="anthropic",
                    sdk_clients=("Anthropic", "AsyncAnthropic"), sdk_base_path="")
FORMATS = {f.name: f for f in (CHAT, RESPONSES, MESSAGES)}
for _f in FORMATS.values():  # ProtocolError.body: each refusal in its own service's envelope
    ENVELOPES[_f.name] = (lambda fmt: lambda err: fmt.error_body("invalid_request", err.message, err.param,
                                                                  err.code))(_f)
ROUTES = {f.path: f for f in FORMATS.values()}


def _status(status: int, err: ProtocolError) -> ProtocolError:
    err.status = status  # type: ignore[attr-defined]  # a refusal that is not a 400
    return err


def wire_format(name: str) -> WireFormat:
    if name not in FORMATS:
        raise ValueError(f"unknown wire format {name!r}; expected one of {', '.join(FORMATS)}")
    return FORMATS[name]


def guess_format(headers: dict[str, str]) -> WireFormat:
    """The format of a request that matched no route, from its headers (for an error the client can read)."""
    return MESSAGES if "anthropic-version" in headers else CHAT
