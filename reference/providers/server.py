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
its responses, bounded: response_store.py). A `tool_choice` is honoured by restricting the script's next
turn to what it allows; where nothing of that turn is allowed, the answer is a kit 400 that says so
(reference/wire/tool_choice.py).

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

from ..core.errors import ProtocolError, ProviderError
from ..core.model import Model
from ..sim.clock import SimClock
from ..wire.formats import FORMATS, ROUTES, WireFormat, guess_format
from ..wire.streaming import encode_sse
from ..wire.tool_choice import CannotHonour, problem, restrict
from .response_store import ResponseStore

RETRY_AFTER = "__retry_after"  # carried from `_answer` to the response headers, never sent in the body

if TYPE_CHECKING:
    import httpx2

# OpenAI's SDK paths are relative to a base_url that ends in /v1; Anthropic's paths start with /v1/,
# so its base_url must NOT end in /v1 (".../v1" would give POST /v1/v1/messages). `.invalid` is a
# reserved top-level domain: nothing here can ever reach a network.
SCRIPTED_ORIGIN = "http://scripted.loopkit.invalid"
OPENAI_BASE_URL = SCRIPTED_ORIGIN + FORMATS["openai-chat"].sdk_base_path
ANTHROPIC_BASE_URL = SCRIPTED_ORIGIN + FORMATS["anthropic"].sdk_base_path
SCRIPTED_API_KEY = "loopkit-scripted"  # any non-empty key; the scripted server only checks one is sent

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
        fmt = ROUTES.get(path) if method == "POST" else None
        try:
            body: Any = json.loads(content or b"null")
        except ValueError:
            body = content.decode("utf-8", "replace")
        status, payload = self._answer(method, path, fmt, headers, body, number)
        extra = payload.pop(RETRY_AFTER, None)  # a scripted provider failure's Retry-After, sent as the header
        shown = fmt or guess_format(headers)
        if status >= 400:
            payload = shown.with_request_id(payload, request_id)
        exchange = Exchange(method, path, fmt.name if fmt else None, headers, body, status, payload)
        self.exchanges.append(exchange)
        response_headers = {shown.request_id_header: request_id}
        if extra is not None:
            response_headers["retry-after"] = f"{extra:g}"
        return exchange, response_headers

    def _answer(self, method: str, path: str, fmt: WireFormat | None, headers: dict[str, str],
                body: Any, number: int) -> tuple[int, dict[str, Any]]:
        if fmt is None:
            return 404, guess_format(headers).kit_error("not_found", (
                f"no route for {method} {path}. Routes: POST /v1/chat/completions, POST /v1/responses, "
                f"POST /v1/messages. OpenAI's base_url must end in /v1 ({OPENAI_BASE_URL}); Anthropic's "
                f"must not ({ANTHROPIC_BASE_URL})."))
        if not _authorized(headers):
            return 401, fmt.kit_error("authentication", "no API key: send 'Authorization: Bearer <key>' "
                                                        "or 'x-api-key: <key>'.")
        if not isinstance(body, dict):
            return 400, fmt.kit_error("invalid_request", "the request body is not a JSON object.")
        choice = fmt.tool_choice(body)
        if choice is None:
            return 400, fmt.kit_error("invalid_request", f"tool_choice {body.get('tool_choice')!r} is not a shape "
                                                         "the kit's server reads (see docs/serve.md).")
        body = fmt.normalised(body)
        previous = body.get("previous_response_id")
        clock = getattr(self.model, "clock", None)
        created = int(clock.now().timestamp()) if isinstance(clock, SimClock) else 0
        try:
            body = fmt.expand(body, self.responses)  # what previous_response_id and item references point to
            fmt.check_request(body)  # what the service enforces, on what the SDK really sent
            messages, tools = fmt.read_request(body)
        except ProtocolError as err:
            return getattr(err, "status", 400), fmt.error_body("invalid_request", err.message, err.param, err.code)
        except (KeyError, TypeError, ValueError, AttributeError) as err:  # a body the wire module cannot read
            return 400, fmt.kit_error("invalid_request", f"cannot read the request ({type(err).__name__}: {err}).")
        unable = problem(choice, tools)
        if unable:
            return 400, fmt.kit_error("invalid_request", unable)
        try:
            turn = restrict(self.model.complete(messages, tools, tool_choice=choice.asked), choice)
        except CannotHonour as err:
            return 400, fmt.kit_error("invalid_request", str(err))
        except ProtocolError as err:  # the model's own check (a ScriptedModel checks every request too)
            return 400, fmt.error_body("invalid_request", err.message, err.param, err.code)
        except ProviderError as err:  # a scripted fault: the real status and envelope (the SDK retries 408/429/5xx)
            payload = fmt.provider_error(err)
            if err.retry_after is not None:
                payload[RETRY_AFTER] = err.retry_after
            return err.status_code or 408, payload
        except Exception as err:  # a scripted model's own failure (e.g. ScriptExhausted) is a server error
            return 500, fmt.kit_error("server", f"the model raised {type(err).__name__}: {err}")
        payload = fmt.response(turn, number=number, model=body.get("model", "scripted"), created=created, body=body,
                               previous=previous)
        if "previous_response_id" in payload and body.get("store", True):  # store=false keeps nothing to point to
            self.responses.put(payload["id"], body.get("input") or [], payload["output"])
        return 200, payload


def _authorized(headers: dict[str, str]) -> bool:
    # anthropic 2.14 sends `Authorization: Bearer <key>`, older SDKs and curl examples `x-api-key`
    bearer = headers.get("authorization", "")
    return (bearer.startswith("Bearer ") and bool(bearer[7:].strip())) or bool(headers.get("x-api-key", "").strip())


def content_type(exchange: Exchange) -> dict[str, str]:
    return {"content-type": "text/event-stream" if streamed(exchange) else "application/json"}


def streamed(exchange: Exchange) -> bool:
    """Streamed if the client asked and the answer is a success (errors come as JSON, before any event)."""
    return exchange.status == 200 and isinstance(exchange.body, dict) and bool(exchange.body.get("stream"))


def encode(exchange: Exchange) -> bytes:
    if not streamed(exchange):
        return json.dumps(exchange.response, ensure_ascii=False).encode("utf-8")
    return encode_sse(FORMATS[exchange.wire or ""].events(exchange.response, exchange.body))
