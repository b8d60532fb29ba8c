"""The run's meters: every model request and every tool attempt, with tokens, cost and time.

The harness keeps the books, not the loop under test: a learner's loop cannot miscount, and every
loop is measured the same way.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from ..sim.clock import SimClock
from ..core.messages import Message, ToolSpec
from ..core.model import Model, Pricing, Turn, Usage
from ..core.result import StepRecord, ToolRecord
from .trace import Trace


@dataclass
class Ledger:
    clock: SimClock
    pricing: Pricing
    steps: list[StepRecord] = field(default_factory=list)
    orphan_tools: list[ToolRecord] = field(default_factory=list)  # tools run before any model call
    trace: Trace = field(default_factory=Trace)  # lesson 6: every record also goes to the run's trace
    redactions: dict[str, int] = field(default_factory=dict)  # kind -> how many were hidden from the model

    @property
    def usage(self) -> Usage:
        return Usage(sum(s.input_tokens for s in self.steps), sum(s.output_tokens for s in self.steps))

    @property
    def cost_usd(self) -> float:
        return self.pricing.cost(self.usage)

    def record_model(self, turn: Turn, started: float) -> None:
        self.steps.append(StepRecord(
            step=len(self.steps) + 1, input_tokens=turn.usage.input_tokens, output_tokens=turn.usage.output_tokens,
            model_seconds=self.clock.elapsed - started, finish_reason=turn.finish_reason, text=turn.text,
            tool_calls=[{"id": c.id, "name": c.name, "arguments": c.arguments} for c in turn.tool_calls],
            started=started))
        self.trace.on_step(self.steps[-1], self.pricing.cost(turn.usage))

    def count_redactions(self, found: dict[str, int]) -> None:
        """What a part hid from the model in a tool result (credentials, stack traces, internal hosts)."""
        for kind, n in found.items():
            self.redactions[kind] = self.redactions.get(kind, 0) + n

    def record_tool(self, call_id: str, name: str, args: dict[str, Any], outcome: Any, exc: Exception | None,
                    started: float, ended: float) -> None:
        record = ToolRecord(call_id, name, args, ok=bool(outcome and outcome.ok),
                            outcome=asdict(outcome) if outcome is not None else None,
                            exception=type(exc).__name__ if exc else None, started=started, seconds=ended - started)
        (self.steps[-1].tools if self.steps else self.orphan_tools).append(record)
        self.trace.on_tool(record)


class MeteredModel:
    """Wraps any model so that each request is recorded in the ledger."""

    def __init__(self, inner: Model, ledger: Ledger):
        self.inner = inner
        self.ledger = ledger

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        started = self.ledger.clock.elapsed
        self.ledger.trace.before_request(messages, tools, tool_choice)
        try:
            turn = self.inner.complete(messages, tools, tool_choice=tool_choice)
        except BaseException as exc:  # a refused request, a provider failure, a grader's cap: traced, not hidden
            self.ledger.trace.on_request_failed(exc)
            raise
        self.ledger.record_model(turn, started)
        return turn

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copy, pickle): no wrapped model to ask
            raise AttributeError(name)
        return getattr(self.inner, name)
