"""What every run returns: one `RunResult`, with a stop reason from one documented enum."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .messages import Message, message_to_dict
from .model import Usage


class StopReason(str, Enum):
    """Why a run ended. Used across the kit; later lessons may add members.

    | value            | kind       | meaning                                                     |
    |------------------|------------|-------------------------------------------------------------|
    | completed        | normal     | the model answered without calling a tool                   |
    | max_steps        | resource   | the step limit was reached                                  |
    | token_budget     | resource   | the token budget would be exceeded                          |
    | time_budget      | resource   | the (simulated) time budget would be exceeded               |
    | cost_budget      | resource   | the cost budget would be exceeded                           |
    | repeated_call    | guard      | the same action kept coming back after an intervention      |
    | alternation      | guard      | A-B-A-B: two actions kept alternating                       |
    | same_result      | guard      | different actions kept returning the same result            |
    | no_progress      | no progress| steps went by without new information                       |
    | circuit_open     | guard      | every tool the task needs was withdrawn after failures      |
    | error            | error      | the run could not continue (e.g. the provider kept failing) |
    | cancelled        | user       | the user pressed stop (between steps, or during a retry wait) |
    """

    COMPLETED = "completed"
    MAX_STEPS = "max_steps"
    TOKEN_BUDGET = "token_budget"
    TIME_BUDGET = "time_budget"
    COST_BUDGET = "cost_budget"
    REPEATED_CALL = "repeated_call"
    ALTERNATION = "alternation"
    SAME_RESULT = "same_result"
    NO_PROGRESS = "no_progress"
    CIRCUIT_OPEN = "circuit_open"
    ERROR = "error"
    CANCELLED = "cancelled"

    @property
    def kind(self) -> str:
        return STOP_KINDS[self]

    def __str__(self) -> str:
        return self.value


STOP_KINDS = {
    StopReason.COMPLETED: "normal",
    StopReason.MAX_STEPS: "resource", StopReason.TOKEN_BUDGET: "resource",
    StopReason.TIME_BUDGET: "resource", StopReason.COST_BUDGET: "resource",
    StopReason.REPEATED_CALL: "guard", StopReason.ALTERNATION: "guard", StopReason.SAME_RESULT: "guard",
    StopReason.CIRCUIT_OPEN: "guard", StopReason.NO_PROGRESS: "no_progress", StopReason.ERROR: "error",
    StopReason.CANCELLED: "user",
}


@dataclass
class ToolRecord:
    """One attempt at running a tool (a retried call has several)."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    ok: bool
    outcome: dict[str, Any] | None  # the structured result, or None if the tool raised
    exception: str | None  # the exception's class name, never its text
    started: float
    seconds: float


@dataclass
class StepRecord:
    """One step = one model request, and the tool attempts that followed it."""

    step: int
    input_tokens: int
    output_tokens: int
    model_seconds: float
    finish_reason: str
    text: str | None
    tool_calls: list[dict[str, Any]]
    tools: list[ToolRecord] = field(default_factory=list)
    started: float = 0.0


@dataclass
class RunResult:
    scenario: str
    loop: str
    stop_reason: StopReason
    answer: str | None
    messages: list[Message]
    usage: Usage
    cost_usd: float
    sim_seconds: float
    steps: list[StepRecord]
    degraded: Any = None  # lesson 4: what was obtained, what is unfinished, what to do next
    detail: str | None = None  # a short human note on why it stopped

    @property
    def model_calls(self) -> int:
        return len(self.steps)

    @property
    def tool_calls(self) -> int:
        """Tool calls the model asked for (whether or not the loop ran them)."""
        return sum(len(s.tool_calls) for s in self.steps)

    def summary(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario, "loop": self.loop, "stop_reason": self.stop_reason.value,
            "model_calls": self.model_calls, "tool_calls": self.tool_calls,
            "input_tokens": self.usage.input_tokens, "output_tokens": self.usage.output_tokens,
            "cost_usd": round(self.cost_usd, 6), "sim_seconds": round(self.sim_seconds, 3),
        }

    def transcript(self) -> list[dict[str, Any]]:
        return [message_to_dict(m) for m in self.messages]
