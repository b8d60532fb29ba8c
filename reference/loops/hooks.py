"""The guarded loop's hooks: what a lesson part must offer to plug into `loops/guarded.py`.

They sit below both the loop and the parts (budget, guards, degrade, executor), so a part never
imports the loop it plugs into, and the loop never imports a part.

    Trip       (stop reason, one-line human explanation): why a part wants the run to end
    Verdict    the guard's word on one tool call: run it, answer it with feedback, or stop
    Budget, Guard, Degrade, Executor   the four protocols; `Parts` holds whichever are switched on
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Protocol, Sequence

from ..core.messages import Message, ToolCall, ToolMessage, ToolSpec
from ..core.result import StopReason
from ..core.toolresult import tool_error
from ..harness.episode import Episode

Trip = tuple[StopReason, str]  # why to stop, and a one-line human explanation


class StopTrip(tuple):
    """A Trip that also says what the degraded output needs to advise the user: may the failure that ended
    the run heal by itself (`retryable`: retry later, or change the request / hand it over), and how long
    the service asked to wait (`retry_after`, seconds). Everyone else still reads a (reason, detail) pair."""

    retryable: Optional[bool]
    retry_after: Optional[float]
    model_failed: bool  # the model service itself failed: no last request to it

    def __new__(cls, reason: StopReason, detail: str, *, retryable: Optional[bool] = None,
                retry_after: Optional[float] = None, model_failed: bool = False) -> "StopTrip":
        trip = super().__new__(cls, (reason, detail))
        trip.retryable, trip.retry_after, trip.model_failed = retryable, retry_after, model_failed
        return trip


class Budget(Protocol):
    def before_request(self, episode: Episode, messages: Sequence[Message], step: int) -> Optional[Trip]: ...
    def before_tool(self, episode: Episode, call: ToolCall) -> Optional[Trip]: ...


@dataclass(frozen=True)
class Verdict:
    """The guard's word on one tool call: run it, answer it with feedback instead, or stop the run."""

    action: str = "run"  # "run" | "intervene" | "stop"
    message: Optional[ToolMessage] = None  # the feedback that answers the call when not run
    trip: Optional[Trip] = None


RUN = Verdict()


class Guard(Protocol):
    def before_call(self, episode: Episode, call: ToolCall, messages: Sequence[Message]) -> Verdict: ...
    def after_result(self, episode: Episode, call: ToolCall, result: ToolMessage) -> ToolMessage: ...
    def after_step(self, episode: Episode, messages: Sequence[Message]) -> Optional[Trip]: ...


class Degrade(Protocol):
    def __call__(self, episode: Episode, messages: list[Message], trip: Trip) -> Any: ...


class Executor(Protocol):
    def offered(self, episode: Episode) -> list[ToolSpec]: ...
    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage: ...
    def after_step(self, episode: Episode) -> Optional[Trip]: ...
    # optional: `after_model_failure(episode, exc, attempt) -> Optional[Trip]`, None once it has waited
    # for the request to be sent again (lesson 5's ResilientExecutor has it; without it a failure stops)


class PlainExecutor:
    """Lesson 1's executor: every tool offered, each call run once through `Toolbox.execute`."""

    def offered(self, episode: Episode) -> list[ToolSpec]:
        return episode.tools.specs

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        return episode.tools.execute(call)

    def after_step(self, episode: Episode) -> Optional[Trip]:
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
