"""The loop's side of a remote episode: `RemoteEpisode` looks like an `Episode` and forwards every
request to the grader's `EpisodeServer` (reference/sandbox/episode_server.py, which documents the
protocol). The server's books are the only books: whatever the loop does to its copy changes nothing there.

The loop's `episode.scenario` is the scenario's public face (`public_view`): what a loop needs (the task,
its checklist and limits, the tools as a server describes them, the wire and prices), never the model's
script, the tools' scripted results or the `expect` block, and not its name either: a loop needs no name to do
the task, and a name it could look up would let it play each scenario by heart. Every run is called `task`
(a constant: a name that differed from run to run would be either a lookup key or a random, unrepeatable one).
"""
from __future__ import annotations

import base64
import threading
from typing import Any, Callable, Sequence

from ..core.codec import decode, decode_exception, encode
from ..core.messages import AssistantMessage, Message, SystemMessage, ToolMessage, ToolSpec, UserMessage
from ..core.model import Pricing, Turn
from ..core.result import RunResult, StepRecord, StopReason, ToolRecord
from ..sim.clock import SimClock
from ..sim.scenario.schema import ChecklistItem, LimitsDef, Scenario
from ..sim.scenario.schema_script import ModelDef, PricingDef
from ..sim.scenario.schema_tools import AnnotationsDef, ToolDef
from ..sim.tools import ToolOutcome, Toolbox
from .channel import Channel
from ..harness.episode import Episode
from ..harness.ledger import Ledger

MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
CLAIM_FIELDS = ("stop_reason", "messages", "answer", "degraded", "detail", "loop")
PUBLIC = {"name", "system", "user", "clock", "intent", "checklist", "limits"}
PUBLIC_TOOL = {"name", "description", "parameters", "volatile", "annotations", "metadata", "alternatives"}
PUBLIC_MODEL = {"name", "wire", "pricing", "seed"}
NEUTRAL_NAME = "task"


def public_view(scenario: Scenario, name: str = NEUTRAL_NAME) -> dict[str, Any]:
    """What a loop may know of a scenario, as plain data (nothing of the script, the tools' rules or `expect`)."""
    data = {**scenario.model_dump(include=PUBLIC), "name": name}
    data["tools"] = [tool.model_dump(include=PUBLIC_TOOL) for tool in scenario.tools]
    data["model"] = scenario.model.model_dump(include=PUBLIC_MODEL)
    return data


def public_scenario(data: dict[str, Any]) -> Scenario:
    """A `public_view` as a Scenario object for the loop to read (built without the checks a whole file needs)."""
    tools = [ToolDef.model_construct(**{**tool, "rules": [], "annotations": AnnotationsDef(**tool["annotations"])
                                        if tool.get("annotations") else None}) for tool in data["tools"]]
    model = ModelDef.model_construct(**{**data["model"], "pricing": PricingDef(**data["model"]["pricing"])})
    return Scenario.model_construct(**{**data, "title": data["name"], "tools": tools, "model": model, "expect": None,
                                       "checklist": [ChecklistItem(**item) for item in data["checklist"]],
                                       "limits": LimitsDef(**data["limits"]), "cancel": None})


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


class RemoteTrace:
    """`episode.trace` in the loop's process: a part's events go to the server's trace."""

    def __init__(self, connection: Connection):
        self.connection = connection

    def event(self, event: str, **fields: Any) -> None:
        self.connection.call("event", event=event, fields={str(k): v for k, v in fields.items()})


class RemoteLedger(Ledger):
    """The loop's mirror of the books; what a part hid from the model is counted in the server's books too."""

    connection: Any = None

    def count_redactions(self, found: dict[str, int]) -> None:
        super().count_redactions(found)
        self.connection.call("count_redactions", found=dict(found))


class RemoteEpisode:
    """What a loop in another process gets: an Episode's face, the server's books."""

    def __init__(self, channel: Channel, scenario: Scenario, specs: list[ToolSpec], start: Any, pricing: Pricing,
                 loop_name: str = "custom"):
        self.connection = Connection(channel, self._sync)
        self.scenario = scenario
        self.clock = RemoteClock(start, self.connection)
        self.ledger = RemoteLedger(self.clock, pricing)  # a mirror of the server's, for the loop to read
        self.ledger.connection = self.connection
        self.model = RemoteModel(self.connection)
        tools = {spec.name: RemoteTool(spec.name, self.connection) for spec in specs}
        self.tools = RemoteToolbox(tools, list(specs), self.clock, self.ledger)
        self.tools.connection = self.connection
        self.loop_name = loop_name
        self.scripted = None  # the scripted model is on the server
        self.trace = RemoteTrace(self.connection)
        self._counter = None  # request_tokens' incremental state, kept on the loop's side
        self.max_steps: int | None = None  # set by the loop, read by its parts, as on an Episode

    # The budget's estimate of the next request is arithmetic on the loop's own messages: computed here,
    # the same way as on an Episode, with no round trip.
    request_tokens = Episode.request_tokens

    @classmethod
    def mirroring(cls, channel: Channel, episode: Episode) -> "RemoteEpisode":
        """In a forked child (a trusted loop: a function, in a copy of the grader's memory, where hiding the name would
        hide nothing): the server's episode as it was at the fork, served through `channel`."""
        return cls(channel, public_scenario(public_view(episode.scenario, episode.scenario.name)), episode.tools.specs,
                   episode.clock.start, episode.ledger.pricing, episode.loop_name)

    # the user's stop button and the waits it may cut short: the server's clock and scenario decide
    def cancel(self) -> None:
        self.connection.call("cancel")

    def cancel_requested(self, between_steps: bool = True) -> bool:
        return bool(self.connection.call("cancel_requested", between_steps=between_steps))

    def wait(self, seconds: float) -> bool:
        return bool(self.connection.call("wait", seconds=float(seconds)))

    def http(self, method: str, path: str, headers: dict[str, str], content: bytes) -> tuple[int, dict[str, str], bytes]:
        """A request to the HTTP API the grader serves this loop (a plain or SDK candidate's), checked there."""
        reply = self.connection.call("http", method=method, path=path, headers=dict(headers),
                                     content=base64.b64encode(content).decode("ascii"))
        return int(reply["status"]), dict(reply["headers"]), base64.b64decode(reply["content"])

    def user_reply(self) -> UserMessage | None:
        reply = self.connection.call("user_reply")
        return reply if isinstance(reply, UserMessage) else None

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

