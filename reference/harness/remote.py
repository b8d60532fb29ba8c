"""An episode served to a loop in another process: the model, the tools and the clock stay here.

The grader keeps the real `Episode` (scripted model, fake tools, clock, ledger) and answers
requests with an `EpisodeServer`; the candidate's process gets a `RemoteEpisode` that looks like an
`Episode` and forwards every request. The protocol is JSON (reference/core/codec.py encodes the
values), one request and one reply at a time:

    {"op": "complete", "messages": [...], "tools": [...], "tool_choice": "auto"}  -> Turn
    {"op": "invoke", "name": ..., "args": {...}, "call_id": ...}                 -> ToolOutcome (or the
                                                                                     tool's exception)
    {"op": "execute", "call": ToolCall}                                           -> ToolMessage
    {"op": "record_tool", ...}   a tool the loop ran itself (a tool it swapped in) -> None
    {"op": "advance", "seconds": s}  (clock.sleep)                                -> None
    {"op": "clock"}                                                                -> {"elapsed", "now", "today"}
    {"op": "finish", "stop_reason": ..., "messages": [...], "answer", "degraded", "detail", "loop"} -> RunResult

    reply: {"ok": true, "value": ...} or {"ok": false, "error": exception, "raised": n}, and in both
    "sync": what the ledger and the clock gained, so the loop's own view (`episode.ledger`) keeps up.

The server's books are the only books: whatever the remote loop does to its copy changes nothing here.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

from ..core.codec import decode, decode_exception, encode, encode_exception
from ..core.messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from ..core.model import Pricing, Turn
from ..core.result import RunResult, StepRecord, StopReason, ToolRecord
from ..sim.clock import SimClock
from ..sim.scenario import LimitsDef, Scenario
from ..sim.tools import ToolOutcome, Toolbox
from .channel import Channel
from .episode import Episode
from .ledger import Ledger

MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
CLAIM_FIELDS = ("stop_reason", "messages", "answer", "degraded", "detail", "loop")


class EpisodeServer:
    """The grader's side: answers one remote loop's requests from the real episode."""

    def __init__(self, episode: Episode):
        self.episode = episode
        self.claims: list[dict[str, Any]] = []  # what each finish() said, in order
        self.raised: dict[int, BaseException] = {}  # errors handed to the loop, by number
        self._sent = (0, 0, 0)  # steps, tools of the last step, orphan tools already synced

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        handler = OPS.get(str(request.get("op")))
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
        messages = _list_of(decode(request.get("messages")), MESSAGE_TYPES, "messages")
        tools = _list_of(decode(request.get("tools")), (ToolSpec,), "tools")
        return self.episode.model.complete(messages, tools, tool_choice=_text(request.get("tool_choice", "auto")))

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
        """A tool the loop ran in its own process: recorded as it reports it, timed on this clock."""
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
    "complete": EpisodeServer.complete, "invoke": EpisodeServer.invoke, "execute": EpisodeServer.execute,
    "record_tool": EpisodeServer.record_tool, "advance": EpisodeServer.advance, "clock": EpisodeServer.clock,
    "finish": EpisodeServer.finish,
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

class Connection:
    """The remote loop's end: one request, one reply, under a lock (a loop may use threads)."""

    def __init__(self, channel: Channel, on_sync: Callable[[dict[str, Any]], None]):
        self.channel = channel
        self.on_sync = on_sync
        self.lock = threading.Lock()

    def call(self, op: str, **fields: Any) -> Any:
        with self.lock:
            self.channel.send({"op": op, **{k: encode(v) for k, v in fields.items()}})
            reply = self.channel.receive()
            self.on_sync(reply.get("sync") or {})
        if reply.get("ok"):
            return decode(reply.get("value"))
        error = decode_exception(reply.get("error") or {})
        error.remote_number = reply.get("raised")  # type: ignore[attr-defined]  # the server's own object
        raise error


class RemoteModel:
    def __init__(self, connection: Connection):
        self.connection = connection

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        return self.connection.call("complete", messages=list(messages), tools=list(tools), tool_choice=tool_choice)


class RemoteClock(SimClock):
    """Reads are local (kept in step by every reply); time passes on the server's clock."""

    def __init__(self, start: Any, connection: Connection):
        super().__init__(start)
        self.connection = connection

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not run backwards")
        self.connection.call("advance", seconds=float(seconds))


class RemoteTool:
    """A scenario tool, run by the server."""

    def __init__(self, name: str, connection: Connection):
        self.name = name
        self.connection = connection

    def __call__(self, args: dict[str, Any]) -> ToolOutcome:
        return self.connection.call("invoke", name=self.name, args=args, call_id="")


class RemoteToolbox(Toolbox):
    """`execute` is Toolbox's own; `invoke` runs scenario tools on the server and reports any tool the
    loop put in `tools` itself (a test's stand-in), so that the server's ledger records every attempt."""

    connection: Connection

    def invoke(self, name: str, args: dict[str, Any], call_id: str = "") -> ToolOutcome:
        tool = self.tools[name]
        if isinstance(tool, RemoteTool):
            return self.connection.call("invoke", name=tool.name, args=args, call_id=call_id)
        started = self.clock.elapsed
        try:
            outcome = tool(args)
        except Exception as exc:
            self.connection.call("record_tool", call_id=call_id, name=name, args=args, outcome=None,
                                 exception=type(exc).__name__, started=started)
            raise
        self.connection.call("record_tool", call_id=call_id, name=name, args=args, outcome=outcome,
                             exception=None, started=started)
        return outcome


class RemoteEpisode:
    """What a loop in another process gets: an Episode's face, the server's books."""

    def __init__(self, channel: Channel, scenario: Scenario, specs: list[ToolSpec], start: Any, pricing: Pricing,
                 loop_name: str = "custom"):
        self.connection = Connection(channel, self._sync)
        self.scenario = scenario
        self.clock = RemoteClock(start, self.connection)
        self.ledger = Ledger(self.clock, pricing)  # a mirror of the server's, for the loop to read
        self.model = RemoteModel(self.connection)
        tools = {spec.name: RemoteTool(spec.name, self.connection) for spec in specs}
        self.tools = RemoteToolbox(tools, list(specs), self.clock, self.ledger)
        self.tools.connection = self.connection
        self.loop_name = loop_name
        self.scripted = None  # the scripted model is on the server

    @classmethod
    def mirroring(cls, channel: Channel, episode: Episode) -> "RemoteEpisode":
        """In a forked child: the server's episode as it was at the fork, served through `channel`."""
        return cls(channel, episode.scenario, episode.tools.specs, episode.clock.start, episode.ledger.pricing,
                   episode.loop_name)

    @property
    def limits(self) -> LimitsDef:
        return self.scenario.limits

    def initial_messages(self) -> list[Message]:
        return [SystemMessage(self.scenario.system), UserMessage(self.scenario.user)]

    def finish(self, stop_reason: StopReason, messages: list[Message], answer: str | None = None,
               degraded: Any = None, detail: str | None = None) -> RunResult:
        return self.connection.call("finish", stop_reason=StopReason(stop_reason), messages=list(messages),
                                    answer=answer, degraded=degraded, detail=detail, loop=self.loop_name)

    def _sync(self, sync: dict[str, Any]) -> None:
        """Bring the loop's view of the books up to the server's (whatever the loop did to it)."""
        self.clock.elapsed = float(sync.get("elapsed", self.clock.elapsed))
        ledger = self.ledger
        try:
            ledger.orphan_tools.extend(_records(sync.get("orphans"), ToolRecord))
            if "tools" in sync:
                ledger.steps[sync["tools"]["step"] - 1].tools.extend(_records(sync["tools"]["records"], ToolRecord))
            ledger.steps.extend(_records(sync.get("steps"), StepRecord))
        except (AttributeError, IndexError, TypeError):  # the loop broke its own copy: its problem
            pass


def _records(data: Any, kind: type) -> list[Any]:
    return [r for r in decode(data or []) if isinstance(r, kind)]


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
