"""The guarded loop's hooks: the whole contract between `loops/guarded.py` and the parts that plug into it.

They sit below both the loop and the parts (budget, guards, degrade, executor), so a part never
imports the loop it plugs into, and the loop never imports a part. Anything that drives a part the way
the loop does (a shadow run over a recorded log, a notebook cell) calls these methods and nothing else.

    Stop       why a part wants the run to end: one frozen value
    Verdict    the guard's word on one tool call: run it, answer it with feedback, or stop
    Budget, Guard, Degrade, Executor   the four protocols; `Parts` holds whichever are switched on

A part may subclass its protocol to inherit the optional methods' defaults (`Budget.headroom`,
`Executor.after_model_failure`); the loop calls every method a protocol declares, and nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Protocol, Sequence

from ..core.messages import Message, ToolCall, ToolMessage, ToolSpec
from ..core.result import StopReason
from ..core.toolresult import tool_error

if TYPE_CHECKING:  # annotations only: the guard runs inside other frameworks without the episode's pydantic
    from ..harness.episode import Episode


@dataclass(frozen=True)
class Stop:
    """Why the run ends: the reason, one line a person can read, and what the degraded output needs to
    advise the user (may the failure heal by itself, how long the service asked to wait, was it the model
    service that failed, so that it is not asked for a last answer)."""

    reason: StopReason
    detail: str
    retryable: Optional[bool] = None
    retry_after: Optional[float] = None  # seconds
    model_failed: bool = False


class Budget(Protocol):
    def before_request(self, episode: Episode, messages: Sequence[Message], step: int) -> Optional[Stop]: ...
    def before_tool(self, episode: Episode, call: ToolCall) -> Optional[Stop]: ...

    def headroom(self, episode: Episode) -> dict[str, float]:
        """What is left of each limit, for the trace before each request; nothing by default."""
        return {}


@dataclass(frozen=True)
class Verdict:
    """The guard's word on one tool call: run it, answer it with feedback instead, or stop the run."""

    action: str = "run"  # "run" | "intervene" | "stop"
    message: Optional[ToolMessage] = None  # the feedback that answers the call when not run
    stop: Optional[Stop] = None  # set when action is "stop"


RUN = Verdict()


class Guard(Protocol):
    """Called before each tool call, after each result, and after each step, in the loop's order. The guard
    reads the history it is given (`messages`, only ever appended to) for what the user said, and the
    episode's clock (today's date) and ledger (did a call reach its tool), so it needs no other feed."""

    def before_call(self, episode: Episode, call: ToolCall, messages: Sequence[Message]) -> Verdict: ...
    def after_result(self, episode: Episode, call: ToolCall, result: ToolMessage) -> ToolMessage: ...
    def after_step(self, episode: Episode, messages: Sequence[Message]) -> Optional[Stop]: ...


class Degrade(Protocol):
    def __call__(self, episode: Episode, messages: list[Message], stop: Stop) -> Any: ...


class Executor(Protocol):
    def offered(self, episode: Episode) -> list[ToolSpec]: ...
    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage: ...
    def after_step(self, episode: Episode) -> Optional[Stop]: ...

    def after_model_failure(self, episode: Episode, exc: BaseException, attempt: int) -> Optional[Stop]:
        """The model request failed (after the SDK's own retries): None once it has waited for the request
        to be sent again, else why the run stops. By default a failure stops the run."""
        return Stop(StopReason.ERROR, f"the model request failed: {type(exc).__name__}")


class PlainExecutor(Executor):
    """Lesson 1's executor: every tool offered, each call run once through `Toolbox.execute`."""

    def offered(self, episode: Episode) -> list[ToolSpec]:
        return episode.tools.specs

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        return episode.tools.execute(call)

    def after_step(self, episode: Episode) -> Optional[Stop]:
        return None


@dataclass
class Parts:
    budget: Optional[Budget] = None
    guard: Optional[Guard] = None
    degrade: Optional[Degrade] = None
    executor: Executor = PlainExecutor()


def not_run(call: ToolCall, why: str) -> ToolMessage:
    """Answers a call the loop decided not to run, so that the history stays protocol-valid."""
    return tool_error(call.id, "not_run", why)
