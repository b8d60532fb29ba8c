"""The kit through the official SDKs: a scripted server behind them, provider adapters in front.

Two halves, so that message shapes and errors are the real ones:

- `ScriptedServer` serves any kit `Model` (usually a `ScriptedModel`) over the real HTTP APIs, as an
  `httpx2.MockTransport` handler: OpenAI Chat Completions (`POST /v1/chat/completions`), the OpenAI
  Responses API (`POST /v1/responses`) and Anthropic Messages (`POST /v1/messages`). It checks the
  JSON body the SDK actually sent with the wire module's protocol check and answers a violation with
  HTTP 400 and the service's error envelope, so the SDK raises its *own* `BadRequestError` carrying
  the real text. `scripted_openai_client(model)` and `scripted_anthropic_client(model)` wire it up.
- `OpenAIChatModel`, `OpenAIResponsesModel` and `AnthropicModel` implement the kit's `Model` protocol
  over an SDK client. Over a scripted client they run offline; over a real one they call the provider:

      OpenAIChatModel(openai.OpenAI())              # reads OPENAI_API_KEY; optional, never required
      episode, server = sdk_episode(find("happy-path"), "anthropic")   # offline, through the SDK

The SDKs (openai, anthropic, httpx2) are imported inside functions only: `loopkit demo` must not pay
for them. Texts that start with "loopkit scripted server:" are the kit's own, not a provider's.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from ..sim.clock import SimClock
from ..harness.episode import Episode
from ..harness.trace import Trace
from ..core.messages import Message, SystemMessage, ToolSpec
from ..core.model import Model, Turn
from ..wire.protocol import ProtocolError, check_wire_body
from ..sim.scenario import Scenario
from ..sim.scripted import ScriptedModel

if TYPE_CHECKING:
    import anthropic
    import httpx2
    import openai

# OpenAI's SDK paths are relative to a base_url that ends in /v1; Anthropic's paths start with /v1/,
# so its base_url must NOT end in /v1 (".../v1" would give POST /v1/v1/messages). `.invalid` is a
# reserved top-level domain: nothing here can ever reach a network.
OPENAI_BASE_URL = "http://scripted.loopkit.invalid/v1"
ANTHROPIC_BASE_URL = "http://scripted.loopkit.invalid"
SCRIPTED_API_KEY = "loopkit-scripted"  # any non-empty key; the scripted server only checks one is sent

ROUTES = {"/v1/chat/completions": "openai-chat", "/v1/responses": "openai-responses", "/v1/messages": "anthropic"}

# Defaults for real use, taken from the model lists of the installed SDKs (openai 3.57, anthropic
# 2.14); not checked against the live services. Pass `model=` to choose.
DEFAULT_OPENAI_MODEL = "gpt-5.4-mini"
DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"


def _wire_module(wire: str):
    from ..wire import anthropic_messages, openai_chat, openai_responses

    return {"openai-chat": openai_chat, "openai-responses": openai_responses, "anthropic": anthropic_messages}[wire]


# ------------------------------------------------------------------------------ the scripted server

@dataclass
class Exchange:
    """One HTTP request the server received and what it answered."""

    method: str
    path: str
    wire: str | None  # None if the path matched no route
    headers: dict[str, str]  # lower-case names
    body: Any  # the JSON the SDK sent (or the raw text if it was not JSON)
    status: int
    response: dict[str, Any]


class ScriptedServer:
    """Serves a kit `Model` over the real HTTP APIs; use it as an `httpx2.MockTransport` handler.

    Every request is kept in `exchanges`. Protocol violations are refused before the model sees the
    request, as the real service refuses them before any inference.
    """

    def __init__(self, model: Model):
        self.model = model
        self.exchanges: list[Exchange] = []

    def transport(self) -> "httpx2.MockTransport":
        import httpx2

        return httpx2.MockTransport(self)

    def __call__(self, request: "httpx2.Request") -> "httpx2.Response":
        import httpx2

        headers = {k.lower(): v for k, v in request.headers.items()}
        status, payload, response_headers = self.handle(request.method, request.url.path, headers, request.content)
        return httpx2.Response(status, json=payload, headers=response_headers)

    # -- everything below is plain Python, testable without any HTTP stack ------------------------
    def handle(self, method: str, path: str, headers: dict[str, str],
               content: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
        request_id = f"req_loopkit{len(self.exchanges) + 1:04d}"
        wire = ROUTES.get(path) if method == "POST" else None
        try:
            body: Any = json.loads(content or b"null")
        except ValueError:
            body = content.decode("utf-8", "replace")
        status, payload = self._answer(method, path, wire, headers, body)
        anthropic = (wire or _guess_wire(headers)) == "anthropic"
        if anthropic and status >= 400:
            payload["request_id"] = request_id  # Anthropic's error envelope carries it (provider-facts.md 4.3)
        self.exchanges.append(Exchange(method, path, wire, headers, body, status, payload))
        name = "request-id" if anthropic else "x-request-id"  # the header each SDK reads into err.request_id
        return status, payload, {name: request_id}

    def _answer(self, method: str, path: str, wire: str | None, headers: dict[str, str],
                body: Any) -> tuple[int, dict[str, Any]]:
        if wire is None:
            return 404, _kit_error(_guess_wire(headers), "not_found", (
                f"no route for {method} {path}. Routes: POST /v1/chat/completions, POST /v1/responses, "
                f"POST /v1/messages. OpenAI's base_url must end in /v1 ({OPENAI_BASE_URL}); Anthropic's "
                f"must not ({ANTHROPIC_BASE_URL})."))
        if not _authorized(headers):
            return 401, _kit_error(wire, "authentication", "no API key: send 'Authorization: Bearer <key>' "
                                                           "or 'x-api-key: <key>'.")
        if not isinstance(body, dict):
            return 400, _kit_error(wire, "invalid_request", "the request body is not a JSON object.")
        problem = _unsupported(wire, body)
        if problem:
            return 400, _kit_error(wire, "invalid_request", problem)
        body = _normalised(wire, body)
        module = _wire_module(wire)
        clock = getattr(self.model, "clock", None)
        created = int(clock.now().timestamp()) if isinstance(clock, SimClock) else 0
        try:
            check_wire_body(body, wire)  # what the service enforces, on what the SDK really sent
            messages, tools = module.from_request(body)
        except ProtocolError as err:
            return 400, err.body
        except (KeyError, TypeError, ValueError, AttributeError) as err:  # a body the wire module cannot read
            return 400, _kit_error(wire, "invalid_request", f"cannot read the request ({type(err).__name__}: {err}).")
        if wire == "openai-responses" and body.get("instructions"):
            messages.insert(0, SystemMessage(body["instructions"]))
        try:
            turn = self.model.complete(messages, tools, tool_choice=_tool_choice(wire, body))
        except ProtocolError as err:  # the model's own check (a ScriptedModel checks every request too)
            return 400, err.body
        except Exception as err:  # a scripted model's own failure (e.g. ScriptExhausted) is a server error
            return 500, _kit_error(wire, "server", f"the model raised {type(err).__name__}: {err}")
        number = f"{len(self.exchanges) + 1:04d}"
        ids = {"openai-chat": "chatcmpl-loopkit", "openai-responses": "resp_loopkit", "anthropic": "msg_loopkit"}
        payload = module.response_from_turn(turn, response_id=ids[wire] + number, model=body.get("model", "scripted"),
                                            created=created)
        if wire == "openai-responses":  # the Responses API echoes the request's settings
            payload.update(tools=body.get("tools", []), tool_choice=body.get("tool_choice", "auto"),
                           parallel_tool_calls=body.get("parallel_tool_calls", True))
        return 200, payload


def _guess_wire(headers: dict[str, str]) -> str:
    return "anthropic" if "anthropic-version" in headers else "openai-chat"


def _authorized(headers: dict[str, str]) -> bool:
    # anthropic 2.14 sends `Authorization: Bearer <key>`, older SDKs and curl examples `x-api-key`
    bearer = headers.get("authorization", "")
    return (bearer.startswith("Bearer ") and bool(bearer[7:].strip())) or bool(headers.get("x-api-key", "").strip())


def _kit_error(wire: str, kind: str, message: str) -> dict[str, Any]:
    """An error in the service's envelope, with a text that says it comes from the kit, not the provider."""
    text = "loopkit scripted server: " + message
    if wire == "anthropic":
        kind = {"server": "api"}.get(kind, kind)
        return {"type": "error", "error": {"type": f"{kind}_error", "message": text}}
    kind = "server" if kind == "server" else "invalid_request"  # OpenAI's 401 and 404 are invalid_request_error too
    return {"error": {"message": text, "type": f"{kind}_error", "param": None, "code": None}}


def _unsupported(wire: str, body: dict[str, Any]) -> str | None:
    """What the real API accepts but the scripted server cannot do: refused loudly, never ignored."""
    if body.get("stream"):
        return "streaming is not supported; call create() without stream=True."
    if wire == "openai-responses" and body.get("previous_response_id"):
        return "previous_response_id is not supported (the server keeps no state); send the whole input."
    choice = body.get("tool_choice")
    if wire == "anthropic":
        if choice is not None and (not isinstance(choice, dict) or choice.get("type") not in ("auto", "none")):
            return (f"tool_choice {choice!r} is not supported; the kit's models take {{'type': 'auto'}} "
                    "or {'type': 'none'}.")
    elif choice is not None and choice not in ("auto", "none"):
        return f"tool_choice {choice!r} is not supported; the kit's models take 'auto' or 'none'."
    return None


def _tool_choice(wire: str, body: dict[str, Any]) -> str:
    choice = body.get("tool_choice")
    if wire == "anthropic":
        return "none" if isinstance(choice, dict) and choice.get("type") == "none" else "auto"
    return "none" if choice == "none" else "auto"


def _normalised(wire: str, body: dict[str, Any]) -> dict[str, Any]:
    """The same request in the one shape the wire module reads (Responses also takes `input` as a string)."""
    if wire == "openai-responses" and isinstance(body.get("input"), str):
        return {**body, "input": [{"type": "message", "role": "user", "content": body["input"]}]}
    return body


# ------------------------------------------------------------------------------ clients

def _server(model_or_server: Model | ScriptedServer) -> ScriptedServer:
    return model_or_server if isinstance(model_or_server, ScriptedServer) else ScriptedServer(model_or_server)


def scripted_openai_client(model: Model | ScriptedServer, **client_kwargs: Any) -> "openai.OpenAI":
    """An `openai.OpenAI` whose requests are answered in-process by `model` (Chat and Responses)."""
    import httpx2
    import openai

    options: dict[str, Any] = dict(api_key=SCRIPTED_API_KEY, base_url=OPENAI_BASE_URL, max_retries=0,
                                   _strict_response_validation=True)
    options.update(client_kwargs)
    return openai.OpenAI(http_client=httpx2.Client(transport=_server(model).transport()), **options)


def scripted_anthropic_client(model: Model | ScriptedServer, **client_kwargs: Any) -> "anthropic.Anthropic":
    """An `anthropic.Anthropic` whose requests are answered in-process by `model`."""
    import anthropic
    import httpx2

    options: dict[str, Any] = dict(api_key=SCRIPTED_API_KEY, base_url=ANTHROPIC_BASE_URL, max_retries=0,
                                   _strict_response_validation=True)
    options.update(client_kwargs)
    return anthropic.Anthropic(http_client=httpx2.Client(transport=_server(model).transport()), **options)


# ------------------------------------------------------------------------------ provider adapters

def _choice_kwargs(tool_choice: str, tools: Sequence[ToolSpec], none: Any) -> dict[str, Any]:
    if tool_choice not in ("auto", "none"):
        raise ValueError(f"tool_choice must be 'auto' or 'none', got {tool_choice!r}")
    # "auto" is every API's default when tools are offered; with no tools there is nothing to forbid
    return {"tool_choice": none} if tool_choice == "none" and tools else {}


@dataclass
class OpenAIChatModel:
    """The kit's `Model` over `client.chat.completions.create`."""

    client: Any  # openai.OpenAI
    model: str = DEFAULT_OPENAI_MODEL
    options: dict[str, Any] = field(default_factory=dict)  # more create() arguments, e.g. temperature

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        wire = _wire_module("openai-chat")
        choice = _choice_kwargs(tool_choice, tools, "none")  # checked before anything is sent
        body = wire.to_request(messages, tools)
        response = self.client.chat.completions.create(model=self.model, **body, **choice, **self.options)
        return wire.turn_from_response(response.model_dump())


@dataclass
class OpenAIResponsesModel:
    """The kit's `Model` over `client.responses.create` (stateless: the whole input every time)."""

    client: Any  # openai.OpenAI
    model: str = DEFAULT_OPENAI_MODEL
    options: dict[str, Any] = field(default_factory=dict)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        wire = _wire_module("openai-responses")
        choice = _choice_kwargs(tool_choice, tools, "none")  # checked before anything is sent
        body = wire.to_request(messages, tools)
        # `id` is optional on input items; the kit derives one from the call id, which a real server never
        # issued (and, with store=false, could not look up), so only the call ids travel.
        body["input"] = [{k: v for k, v in item.items() if not (k == "id" and item.get("type") == "function_call")}
                         for item in body["input"]]
        response = self.client.responses.create(model=self.model, **body, **choice, **self.options)
        return wire.turn_from_response(response.model_dump())


@dataclass
class AnthropicModel:
    """The kit's `Model` over `client.messages.create`."""

    client: Any  # anthropic.Anthropic
    model: str = DEFAULT_ANTHROPIC_MODEL
    max_tokens: int = 4096  # required by the API; the SDK refuses non-streaming calls it expects to exceed 10 min
    options: dict[str, Any] = field(default_factory=dict)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        wire = _wire_module("anthropic")
        choice = _choice_kwargs(tool_choice, tools, {"type": "none"})  # checked before anything is sent
        body = wire.to_request(messages, tools)
        response = self.client.messages.create(model=self.model, max_tokens=self.max_tokens, **body, **choice,
                                               **self.options)
        return wire.turn_from_response(response.model_dump())


def sdk_model(wire: str, model: Model | ScriptedServer) -> Model:
    """The adapter for `wire`, over a scripted client that serves `model`."""
    if wire == "openai-chat":
        return OpenAIChatModel(scripted_openai_client(model))
    if wire == "openai-responses":
        return OpenAIResponsesModel(scripted_openai_client(model))
    if wire == "anthropic":
        return AnthropicModel(scripted_anthropic_client(model))
    raise ValueError(f"unknown wire format {wire!r}; expected openai-chat, openai-responses or anthropic")


def sdk_episode(scenario: Scenario, wire: str, *, seed: int | None = None,
                trace: Trace | None = None) -> tuple[Episode, ScriptedServer]:
    """An Episode whose model is the scenario's scripted model, reached through the official SDK for `wire`.

    The scripted model is built as `Episode.from_scenario` builds it (same label and seed, hence the
    same tool-call ids) and shares the episode's clock, so usage, cost and time match the in-process run.
    The harness traces it like any run (`trace`, or one in memory): the trace replays without the SDK.
    """
    scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
    scripted = ScriptedModel(scenario.model, seed=seed, label=scenario.name)
    server = ScriptedServer(scripted)
    episode = Episode.from_scenario(scenario, seed=seed, model=sdk_model(wire, server), trace=trace)
    scripted.clock = episode.clock  # one clock: the model's latency shows in the run's time
    return episode, server


__all__ = [
    "ANTHROPIC_BASE_URL", "AnthropicModel", "Exchange", "OPENAI_BASE_URL", "OpenAIChatModel", "OpenAIResponsesModel",
    "ScriptedServer", "scripted_anthropic_client", "scripted_openai_client", "sdk_episode", "sdk_model",
]
