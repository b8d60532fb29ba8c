"""The kit's loop guard for a loop the kit does not run: the one entry point each framework's hook calls.

    guard = KitGuard(tools, system=..., user=..., today=...)   # tools: name, description, parameters
    guard.model_turn([(call_id, name, arguments), ...])   # optional: the calls of one model message
    said = guard.before(call_id, name, arguments)         # before the tool runs
    if said.action == "run": text = guard.after(call_id, name, run_the_tool(), failed=...).text
    else: the model reads said.text as the call's result (or the run ends: said.action == "stop")

It drives `LoopGuard` (reference/parts/guards/guard.py) through the same three hooks as the kit's guarded
loop, from a transcript it keeps itself (the system and user messages, each model turn's calls, each
result), so a framework's hook needs to pass only what every framework has: the call's id, name and
arguments, and the result text. A framework that shows the whole model message calls `model_turn`
first; otherwise each call is taken as a turn of its own (its lapses are then counted per call).

Imports the standard library and the guard only (no SDK, no pydantic): it installs into any framework's
venv with `pip install --no-deps`, beside whatever `openai` or `pydantic` that framework pins.
"""
from __future__ import annotations

import datetime as dt
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

from ..core.messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from ..core.toolresult import error_body, to_json
from ..parts.guards.effects import ToolInfo
from ..parts.guards.guard import LoopGuard
from ..parts.guards.thresholds import thresholds_for


class LoopStopped(RuntimeError):
    """The kit's guard ended the run: the model carried on after its warnings. `pattern`: what it saw."""

    def __init__(self, pattern: str, detail: str):
        super().__init__(detail)
        self.pattern = pattern


@dataclass(frozen=True)
class Decision:
    """The guard's word on one call: "run" it; "intervene" (the model reads `text` as the call's result,
    the tool is not run, or its result is replaced); "stop" (end the run; `text` is the last feedback)."""

    action: str
    text: Optional[str] = None
    pattern: str = ""
    detail: str = ""

    def raise_if_stop(self) -> "Decision":
        if self.action == "stop":
            raise LoopStopped(self.pattern, self.detail)
        return self


RUN = Decision("run")


@dataclass
class _Clock:
    date: dt.date

    def today(self) -> dt.date:
        return self.date


@dataclass
class _Ledger:
    steps: tuple = ()  # empty: every result handed to `after` came from the tool itself


@dataclass
class _Episode:
    """What the guard reads from an episode: today's date (for its argument checks) and the ledger."""

    clock: _Clock
    ledger: _Ledger = field(default_factory=_Ledger)


TRANSIENT_STATUS = {408, 429, 500, 502, 503, 504}  # HTTP semantics: try again later


def transient(exc: BaseException) -> bool:
    """A failure that may heal by itself: a timeout, a dropped connection, or an HTTP status that says so
    (a retry of the same call after one is no loop). A 404 or a ValueError is not."""
    status = getattr(exc, "code", None) or getattr(exc, "status", None)
    return isinstance(exc, (TimeoutError, ConnectionError)) or status in TRANSIENT_STATUS


def _text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _plain(arguments: Any) -> Any:
    """Arguments as a value: JSON text parsed (text that is not JSON stays text), absent optionals dropped."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return arguments
    return {k: v for k, v in arguments.items() if v is not None} if isinstance(arguments, dict) else arguments


def _same_arguments(sent: Any, received: Any) -> bool:
    return _plain(sent) == _plain(received)


class KitGuard:
    def __init__(self, tools: Iterable[Mapping[str, Any]], *, system: str = "", user: str = "",
                 today: Optional[dt.date] = None, intent: str = "general"):
        infos = {t["name"]: ToolInfo(t["name"], t.get("parameters") or {}, t.get("description", ""),
                                     t.get("annotations"), t.get("volatile"), frozenset(t.get("metadata") or ()))
                 for t in tools}
        self.guard = LoopGuard(infos, thresholds_for(intent))
        self.episode = _Episode(_Clock(today or dt.date.today()))
        self.messages: list[Message] = ([SystemMessage(system)] if system else []) + [UserMessage(user)]
        self.turn: tuple[str, ...] = ()  # the call ids of the model message being run
        self.stopping: Optional[Decision] = None  # a stop decided after a result: the run ends before its next step
        self.decided: dict[str, Decision] = {}  # each call's word, once: a framework may ask twice for one call
        self.claimed: set[str] = set()  # the calls of this turn a hook without ids has taken (claim)
        self.lock = threading.RLock()  # frameworks may run a turn's calls in parallel threads

    @classmethod
    def for_spec(cls, spec: Mapping[str, Any]) -> "KitGuard":
        """From the bench's run spec (reference/bench/run.py): tools, system, user, today, intent."""
        today = dt.date.fromisoformat(spec["today"]) if spec.get("today") else None
        return cls(spec["tools"], system=spec.get("system", ""), user=spec.get("user", ""), today=today,
                   intent=spec.get("intent", "general"))

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.guard.events

    def _model_turn(self, calls: Sequence[tuple[str, str, Any]]) -> Optional[Decision]:
        """A new model message with these calls (id, name, arguments). Returns a stop decided earlier."""
        if tuple(c[0] for c in calls) == self.turn:
            return self.stopping
        if self.turn:
            stop = self.guard.after_step(self.episode, self.messages)  # type: ignore[arg-type]
            if stop is not None and self.stopping is None:
                self.stopping = Decision("stop", None, stop.reason.value, stop.detail)
        self.messages.append(AssistantMessage(None, tuple(ToolCall(i, n, _text(a)) for i, n, a in calls)))
        self.turn = tuple(c[0] for c in calls)
        return self.stopping

    def _before(self, call_id: str, name: str, arguments: Any) -> Decision:
        """Before the tool runs: run it, answer it with feedback instead, or stop the run."""
        if call_id in self.decided and self.stopping is None:  # asked again for the same call: the same answer
            return self.decided[call_id]
        self.decided[call_id] = said = self._decide(call_id, name, arguments)
        return said

    def _decide(self, call_id: str, name: str, arguments: Any) -> Decision:
        if call_id not in self.turn:
            self._model_turn([(call_id, name, arguments)])
        if self.stopping is not None:
            return self.stopping
        call = ToolCall(call_id, name, _text(arguments))
        verdict = self.guard.before_call(self.episode, call, self.messages)  # type: ignore[arg-type]
        if verdict.action == "run":
            return RUN
        assert verdict.message is not None
        self.messages.append(verdict.message)
        if verdict.action == "stop":
            assert verdict.stop is not None
            self.stopping = Decision("stop", verdict.message.content, verdict.stop.reason.value, verdict.stop.detail)
            return self.stopping
        return Decision("intervene", verdict.message.content, self._last_pattern())

    def _after(self, call_id: str, name: str, result: str, *, failed: bool = False) -> Decision:
        """After the tool ran: its result goes on (action "run", `text` the result), or feedback replaces it."""
        call = ToolCall(call_id, name, "{}")
        seen = ToolMessage(call_id, result, is_error=failed)
        given = self.guard.after_result(self.episode, call, seen)  # type: ignore[arg-type]
        self.messages.append(given)
        pending = self.guard._pending
        if pending is not None and self.stopping is None:  # the run ends before the model's next step
            self.stopping = Decision("stop", given.content, pending.reason.value, pending.detail)
        if given is seen:
            return Decision("run", result)
        return Decision("intervene", given.content, self._last_pattern())

    def model_turn(self, calls: Sequence[tuple[str, str, Any]]) -> Optional[Decision]:
        """A new model message with these calls (id, name, arguments). Returns a stop decided earlier."""
        with self.lock:
            return self._model_turn(calls)

    def claim(self, name: str, arguments: Any) -> Optional[str]:
        """For a hook that sees a call's name and arguments but not its id: the id of the first call of the
        current model message with that name and those arguments that no hook has claimed yet (None if
        there is none, e.g. the framework never showed the message)."""
        with self.lock:
            turn = next((m for m in reversed(self.messages) if isinstance(m, AssistantMessage)), None)
            for call in turn.tool_calls if turn is not None else ():
                if call.id in self.turn and call.id not in self.claimed and call.name == name \
                        and _same_arguments(call.arguments, arguments):
                    self.claimed.add(call.id)
                    return call.id
        return None

    def before(self, call_id: str, name: str, arguments: Any) -> Decision:
        """Before the tool runs: run it, answer it with feedback instead, or stop the run."""
        with self.lock:
            return self._before(call_id, name, arguments)

    def after(self, call_id: str, name: str, result: str, *, failed: bool = False,
              raised: Optional[BaseException] = None) -> Decision:
        """After the tool ran: its result goes on (action "run", `text` the result), or feedback replaces it.
        `raised`: the exception the tool raised, when the hook sees one (then `result` may be anything)."""
        if raised is not None:
            result, failed = to_json(error_body(type(raised).__name__, str(raised) or type(raised).__name__,
                                                retryable=transient(raised))), True
        with self.lock:
            return self._after(call_id, name, result, failed=failed)

    def _last_pattern(self) -> str:
        return str(self.guard.events[-1].get("pattern", "")) if self.guard.events else ""
