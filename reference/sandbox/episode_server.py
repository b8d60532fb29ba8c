"""The grader's side of a remote episode: `EpisodeServer` answers a loop in another process from the
real episode (reference/sandbox/remote.py is the loop's side). The model, the tools and the clock stay here.

The grader keeps the real `Episode` (scripted model, fake tools, clock, ledger) and answers
requests with an `EpisodeServer`; the candidate's process gets a `RemoteEpisode` that looks like an
`Episode` and forwards every request. The protocol is JSON (reference/core/codec.py encodes the
values), one request and one reply at a time:

    {"op": "complete", "messages": [...], "tools": [...], "tool_choice": "auto"}  -> Turn (refused to a loop
                                                                                     served an HTTP API)
    {"op": "http", "method", "path", "headers", "content": base64}  (a plain or SDK loop's request, checked
                                                   here as the service checks it) -> {"status", "headers", "content"}
    {"op": "invoke", "name": ..., "args": {...}, "call_id": ...}                 -> ToolOutcome (or the
                                                                                     tool's exception)
    {"op": "execute", "call": ToolCall}                                           -> ToolMessage
    {"op": "record_tool", ...}   a tool the loop ran itself (a tool it swapped in) -> None
    {"op": "advance", "seconds": s}  (clock.sleep)                                -> None
    {"op": "clock"}                                                                -> {"elapsed", "now", "today"}
    {"op": "event", "event": kind, "fields": {...}}  (episode.trace.event)        -> None
    {"op": "cancel"} / {"op": "cancel_requested", "between_steps": b}  (the stop button) -> None / bool
    {"op": "wait", "seconds": s}  (a backoff the user may cut short)               -> bool
    {"op": "user_reply"}  (the user's next turn, after an answer without tool calls)  -> UserMessage or None
    {"op": "count_redactions", "found": {kind: n}}  (what a part hid from the model) -> None
    {"op": "finish", "stop_reason": ..., "messages": [...], "answer", "degraded", "detail", "loop"} -> RunResult

    reply: {"ok": true, "value": ...} or {"ok": false, "error": exception, "raised": n}, and in both
    "sync": what the ledger and the clock gained, so the loop's own view (`episode.ledger`) keeps up.

The server's books are the only books: whatever the remote loop does to its copy changes nothing here.
"""
from __future__ import annotations

import base64
from typing import Any, Callable, Protocol

from ..core.codec import decode, encode, encode_exception
from ..core.messages import AssistantMessage, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from ..core.model import Turn
from ..core.result import RunResult, StopReason
from ..sim.tools import ToolOutcome
from ..harness.episode import Episode

MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
CLAIM_FIELDS = ("stop_reason", "messages", "answer", "degraded", "detail", "loop")


class HttpApi(Protocol):
    """An API served over HTTP (the scripted server): a request's bytes in, the response's bytes out."""

    def respond(self, method: str, path: str, headers: dict[str, str],
                content: bytes) -> tuple[int, dict[str, str], bytes]: ...


class EpisodeServer:
    """The grader's side: answers one remote loop's requests from the real episode."""

    def __init__(self, episode: Episode, loop_records_tools: bool = False, api: HttpApi | None = None):
        self.episode = episode
        # a loop that speaks an HTTP API (a plain or SDK candidate) reaches the model only through `api`, which
        # checks each request as the service would, here, where nothing in the loop's process can skip the check
        self.api = api
        # `record_tool` (a tool the loop ran in its own process, recorded as the loop says) is taken only from a
        # loop the caller trusts (a test's own function); a candidate's tool records are made here, or not at all
        self.loop_records_tools = loop_records_tools
        self.ops = OPS
        self.claims: list[dict[str, Any]] = []  # what each finish() said, in order
        self.raised: dict[int, BaseException] = {}  # errors handed to the loop, by number
        self._sent = (0, 0, 0)  # steps, tools of the last step, orphan tools already synced

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        handler = self.ops.get(str(request.get("op")))
        try:
            if handler is None:
                raise ValueError(f"unknown request {str(request.get('op'))[:40]!r}")
            reply: dict[str, Any] = {"ok": True, "value": encode(handler(self, request))}
        except Exception as exc:  # the loop gets the exception the real call would have raised
            self.raised[len(self.raised) + 1] = exc
            reply = {"ok": False, "error": encode_exception(exc), "raised": len(self.raised)}
        reply["sync"] = self.sync()
        return reply

    def sync(self) -> dict[str, Any]:
        ledger = self.episode.ledger
        steps, tools, orphans = self._sent
        out: dict[str, Any] = {"elapsed": self.episode.clock.elapsed}
        if len(ledger.orphan_tools) > orphans:
            out["orphans"] = encode(ledger.orphan_tools[orphans:])
        if steps and len(ledger.steps[steps - 1].tools) > tools:
            out["tools"] = {"step": steps, "records": encode(ledger.steps[steps - 1].tools[tools:])}
        if len(ledger.steps) > steps:
            out["steps"] = encode(ledger.steps[steps:])
        self._sent = (len(ledger.steps), len(ledger.steps[-1].tools) if ledger.steps else 0, len(ledger.orphan_tools))
        return out

    # -- the requests ------------------------------------------------------------------------------
    def complete(self, request: dict[str, Any]) -> Turn:
        if self.api is not None:
            raise PermissionError("this loop reaches the model only through its HTTP API")
        messages = _list_of(decode(request.get("messages")), MESSAGE_TYPES, "messages")
        tools = _list_of(decode(request.get("tools")), (ToolSpec,), "tools")
        return self.episode.model.complete(messages, tools, tool_choice=_text(request.get("tool_choice", "auto")))

    def http(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.api is None:
            raise PermissionError("no HTTP API is served to this loop: it asks episode.model")
        headers = decode(request.get("headers"))
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in (*headers, *headers.values())):
            raise TypeError("headers must be a dict of strings")
        content = base64.b64decode(_text(request.get("content")), validate=True)
        status, sent, body = self.api.respond(_text(request.get("method")), _text(request.get("path")),
                                              {k.lower(): v for k, v in headers.items()}, content)
        return {"status": status, "headers": sent, "content": base64.b64encode(body).decode("ascii")}

    def invoke(self, request: dict[str, Any]) -> ToolOutcome:
        args = decode(request.get("args"))
        if not isinstance(args, dict):
            raise TypeError(f"tool arguments must be a dict, got {type(args).__name__}")
        return self.episode.tools.invoke(_text(request.get("name")), args, _text(request.get("call_id", "")))

    def execute(self, request: dict[str, Any]) -> ToolMessage:
        call = decode(request.get("call"))
        if not isinstance(call, ToolCall):
            raise TypeError(f"execute takes a ToolCall, got {type(call).__name__}")
        return self.episode.tools.execute(call)

    def record_tool(self, request: dict[str, Any]) -> None:
        """A tool the loop ran in its own process: recorded as it reports it, timed on this clock (from a trusted
        loop only: otherwise the books do not take the loop's word for what a tool did)."""
        if not self.loop_records_tools:
            return
        outcome = decode(request.get("outcome"))
        outcome = outcome if isinstance(outcome, ToolOutcome) else None
        args = decode(request.get("args"))
        exception = request.get("exception")
        ended = self.episode.clock.elapsed
        started = min(max(_number(request.get("started", ended)), 0.0), ended)
        self.episode.ledger.record_tool(_text(request.get("call_id", "")), _text(request.get("name")),
                                        args if isinstance(args, dict) else {}, outcome,
                                        _text(exception)[:100] if exception else None, started, ended)

    def advance(self, request: dict[str, Any]) -> None:
        self.episode.clock.advance(_number(request.get("seconds")))

    def event(self, request: dict[str, Any]) -> None:
        fields = decode(request.get("fields"))
        self.episode.trace.event(_text(request.get("event")), **(fields if isinstance(fields, dict) else {}))

    def cancel(self, request: dict[str, Any]) -> None:
        self.episode.cancel()

    def cancel_requested(self, request: dict[str, Any]) -> bool:
        return self.episode.cancel_requested(between_steps=bool(request.get("between_steps", True)))

    def wait(self, request: dict[str, Any]) -> bool:
        return self.episode.wait(_number(request.get("seconds")))

    def user_reply(self, request: dict[str, Any]) -> UserMessage | None:
        return self.episode.user_reply()

    def count_redactions(self, request: dict[str, Any]) -> None:
        found = decode(request.get("found"))
        if isinstance(found, dict):
            self.episode.ledger.count_redactions({_text(k): int(_number(v)) for k, v in found.items()})

    def clock(self, request: dict[str, Any]) -> dict[str, Any]:
        clock = self.episode.clock
        return {"elapsed": clock.elapsed, "now": clock.now().isoformat(), "today": clock.today().isoformat()}

    def finish(self, request: dict[str, Any]) -> RunResult:
        claim = claim_from(request)
        self.claims.append(claim)
        result = self.episode.finish(claim["stop_reason"], claim["messages"], claim["answer"], claim["degraded"],
                                     claim["detail"])
        result.loop = claim["loop"] or result.loop
        return result


OPS: dict[str, Callable[[EpisodeServer, dict[str, Any]], Any]] = {
    "complete": EpisodeServer.complete, "http": EpisodeServer.http, "invoke": EpisodeServer.invoke, "execute": EpisodeServer.execute,
    "record_tool": EpisodeServer.record_tool, "advance": EpisodeServer.advance, "clock": EpisodeServer.clock,
    "finish": EpisodeServer.finish, "event": EpisodeServer.event, "cancel": EpisodeServer.cancel,
    "cancel_requested": EpisodeServer.cancel_requested, "wait": EpisodeServer.wait,
    "count_redactions": EpisodeServer.count_redactions, "user_reply": EpisodeServer.user_reply,
}


def claim_from(data: dict[str, Any]) -> dict[str, Any]:
    """What a loop says about its run (decoded and checked for type): never the meters, which are ours."""
    reason = decode(data.get("stop_reason"))
    claim = {"stop_reason": StopReason(reason),  # ValueError for a stop reason that does not exist
             "messages": _list_of(decode(data.get("messages")), MESSAGE_TYPES, "messages"),
             "answer": decode(data.get("answer")), "degraded": decode(data.get("degraded")),
             "detail": decode(data.get("detail")), "loop": decode(data.get("loop"))}
    for key in ("answer", "detail", "loop"):
        if claim[key] is not None and not isinstance(claim[key], str):
            claim[key] = str(claim[key])
    return claim


def encode_claim(result: RunResult) -> dict[str, Any]:
    return {key: encode(getattr(result, key)) for key in CLAIM_FIELDS}


# ----------------------------------------------------------------------------------- the loop's side

def _list_of(value: Any, kinds: tuple[type, ...], what: str) -> list[Any]:
    if not isinstance(value, list) or not all(isinstance(v, kinds) for v in value):
        raise TypeError(f"{what} must be a list of {' / '.join(k.__name__ for k in kinds)}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return float(value)
