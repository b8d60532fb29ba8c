"""A scripted server behind the official SDKs: any kit `Model` served over the real HTTP APIs.

`ScriptedServer` is an `httpx2.MockTransport` handler for OpenAI Chat Completions
(`POST /v1/chat/completions`), the OpenAI Responses API (`POST /v1/responses`) and Anthropic Messages
(`POST /v1/messages`). It checks the JSON body the SDK actually sent with the wire module's protocol
check and answers a violation with HTTP 400 and the service's error envelope, so the SDK raises its
*own* `BadRequestError` carrying the real text; message shapes and errors are the real ones.
`adapters.py` puts SDK clients and the kit's provider adapters in front of it; `loopkit serve`
(reference/serve/) puts it behind a real HTTP server.

A request with `stream: true` gets the answer as the service's server-sent events
(reference/wire/streaming.py); a Responses request may name a `previous_response_id` (the server keeps
its responses, bounded: response_store.py); `tool_choice` may force a tool (the script still decides).

httpx2 is imported inside functions only: `loopkit demo` must not pay for it. Texts that start with
"loopkit scripted server:" are the kit's own, not a provider's.
"""
from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.messages import SystemMessage
from ..core.model import Model
from ..sim.clock import SimClock
from ..core.errors import ProviderError
from ..wire.protocol import ProtocolError, check_required_fields, check_wire_body, wire_module
from ..wire.streaming import encode_sse, sse_events
from .response_store import ResponseStore

RETRY_AFTER = "__retry_after"  # carried from `_answer` to the response headers, never sent in the body

if TYPE_CHECKING:
    import httpx2

# OpenAI's SDK paths are relative to a base_url that ends in /v1; Anthropic's paths start with /v1/,
# so its base_url must NOT end in /v1 (".../v1" would give POST /v1/v1/messages). `.invalid` is a
# reserved top-level domain: nothing here can ever reach a network.
OPENAI_BASE_URL = "http://scripted.loopkit.invalid/v1"
ANTHROPIC_BASE_URL = "http://scripted.loopkit.invalid"
SCRIPTED_API_KEY = "loopkit-scripted"  # any non-empty key; the scripted server only checks one is sent

ROUTES = {"/v1/chat/completions": "openai-chat", "/v1/responses": "openai-responses", "/v1/messages": "anthropic"}

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

    def __init__(self, model: Model, *, keep: int | None = None):
        """`keep`: how many exchanges to remember (None: all; a long-running server passes a bound)."""
        self.model = model
        self.exchanges: deque[Exchange] = deque(maxlen=keep)
        self.responses = ResponseStore()  # Responses API: what previous_response_id points to
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()  # request numbers stay unique when threads serve several clients

    def transport(self) -> "httpx2.MockTransport":
        import httpx2

        return httpx2.MockTransport(self)

    def __call__(self, request: "httpx2.Request") -> "httpx2.Response":
        import httpx2

        headers = {k.lower(): v for k, v in request.headers.items()}
        status, response_headers, content = self.respond(request.method, request.url.path, headers, request.content)
        return httpx2.Response(status, content=content, headers=response_headers)

    # -- everything below is plain Python, testable without any HTTP stack ------------------------
    def handle(self, method: str, path: str, headers: dict[str, str],
               content: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
        exchange, response_headers = self.exchange(method, path, headers, content)
        return exchange.status, exchange.response, response_headers

    def respond(self, method: str, path: str, headers: dict[str, str],
                content: bytes) -> tuple[int, dict[str, str], bytes]:
        """The answer as bytes on the wire: JSON, or server-sent events if the request asked to stream."""
        exchange, response_headers = self.exchange(method, path, headers, content)
        return (exchange.status, {**response_headers, **content_type(exchange)}, encode(exchange))

    def exchange(self, method: str, path: str, headers: dict[str, str],
                 content: bytes) -> tuple[Exchange, dict[str, str]]:
        with self._lock:
            number = next(self._numbers)
        request_id = f"req_loopkit{number:04d}"
        wire = ROUTES.get(path) if method == "POST" else None
        try:
            body: Any = json.loads(content or b"null")
        except ValueError:
            body = content.decode("utf-8", "replace")
        status, payload = self._answer(method, path, wire, headers, body, number)
        extra = payload.pop(RETRY_AFTER, None)  # a scripted provider failure's Retry-After, sent as the header
        anthropic = (wire or _guess_wire(headers)) == "anthropic"
        if anthropic and status >= 400:
            payload["request_id"] = request_id  # Anthropic's error envelope carries it (provider-facts.md 4.3)
        exchange = Exchange(method, path, wire, headers, body, status, payload)
        self.exchanges.append(exchange)
        name = "request-id" if anthropic else "x-request-id"  # the header each SDK reads into err.request_id
        response_headers = {name: request_id}
        if extra is not None:
            response_headers["retry-after"] = f"{extra:g}"
        return exchange, response_headers

    def _answer(self, method: str, path: str, wire: str | None, headers: dict[str, str],
                body: Any, number: int) -> tuple[int, dict[str, Any]]:
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
        previous = body.get("previous_response_id") if wire == "openai-responses" else None
        if previous is not None:
            before = self.responses.get(previous)
            if before is None:  # quoted in public client code (docs/protocol.md); not a kit text
                return 400, {"error": {"message": f"Previous response with id '{previous}' not found.",
                                       "type": "invalid_request_error", "param": "previous_response_id",
                                       "code": "previous_response_not_found"}}
            body = {**body, "input": before + list(body.get("input") or [])}
        module = wire_module(wire)
        clock = getattr(self.model, "clock", None)
        created = int(clock.now().timestamp()) if isinstance(clock, SimClock) else 0
        try:
            check_required_fields(body, wire)
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
        except ProviderError as err:  # a scripted fault: the real status and envelope (the SDK retries 408/429/5xx)
            payload = err.body(wire)
            if err.retry_after is not None:
                payload[RETRY_AFTER] = err.retry_after
            return err.status_code or 408, payload
        except Exception as err:  # a scripted model's own failure (e.g. ScriptExhausted) is a server error
            return 500, _kit_error(wire, "server", f"the model raised {type(err).__name__}: {err}")
        ids = {"openai-chat": "chatcmpl-loopkit", "openai-responses": "resp_loopkit", "anthropic": "msg_loopkit"}
        payload = module.response_from_turn(turn, response_id=f"{ids[wire]}{number:04d}",
                                            model=body.get("model", "scripted"), created=created)
        if wire == "openai-responses":  # the Responses API echoes the request's settings
            payload.update(tools=body.get("tools", []), tool_choice=body.get("tool_choice", "auto"),
                           parallel_tool_calls=body.get("parallel_tool_calls", True),
                           previous_response_id=previous)
            if body.get("store", True):  # the default; store=false keeps nothing to point back to
                self.responses.put(payload["id"], body["input"], payload["output"])
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
    choice = body.get("tool_choice")
    if choice is None or _forced_tool(wire, choice) is not None:
        return None
    return (f"tool_choice {choice!r} is not supported; the kit's server takes 'auto', 'none', 'required' or a "
            "named function (OpenAI), or {'type': 'auto' | 'none' | 'any' | 'tool'} (Anthropic).")


def _forced_tool(wire: str, choice: Any) -> str | None:
    """The tool_choice as one word: auto, none, required (any tool) or the name of the one tool; None if unknown."""
    if wire == "anthropic":
        kind = choice.get("type") if isinstance(choice, dict) else None
        if kind == "tool":
            return choice.get("name") if isinstance(choice.get("name"), str) else None
        return {"auto": "auto", "none": "none", "any": "required"}.get(kind)  # type: ignore[arg-type]
    if choice in ("auto", "none", "required"):
        return choice
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = (choice.get("function") or {}).get("name") if wire == "openai-chat" else choice.get("name")
        return name if isinstance(name, str) else None
    return None


def _tool_choice(wire: str, body: dict[str, Any]) -> str:
    """What the kit's model is asked: "none", else "auto". A scripted model plays its script either way: a
    forced choice (required, a named tool) is accepted, and the script decides which calls come."""
    return "none" if _forced_tool(wire, body.get("tool_choice", "auto")) == "none" else "auto"


def content_type(exchange: Exchange) -> dict[str, str]:
    return {"content-type": "text/event-stream" if streamed(exchange) else "application/json"}


def streamed(exchange: Exchange) -> bool:
    """Streamed if the client asked and the answer is a success (errors come as JSON, before any event)."""
    return exchange.status == 200 and isinstance(exchange.body, dict) and bool(exchange.body.get("stream"))


def encode(exchange: Exchange) -> bytes:
    if not streamed(exchange):
        return json.dumps(exchange.response, ensure_ascii=False).encode("utf-8")
    include_usage = bool((exchange.body.get("stream_options") or {}).get("include_usage"))
    return encode_sse(sse_events(exchange.wire or "", exchange.response, include_usage=include_usage))


def _normalised(wire: str, body: dict[str, Any]) -> dict[str, Any]:
    """The same request in the one shape the wire module reads (Responses also takes `input` as a string)."""
    if wire == "openai-responses" and isinstance(body.get("input"), str):
        return {**body, "input": [{"type": "message", "role": "user", "content": body["input"]}]}
    return body
