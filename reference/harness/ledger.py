"""The run's meters: every model request and every tool attempt, with tokens, cost and time.

The harness keeps the books, not the loop under test: a learner's loop cannot miscount, and every
loop is measured the same way.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Sequence

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
    # running totals, so that reading the meters costs the same at step 5,000 as at step 5; kept for the
    # steps recorded here (a list changed from outside is summed again, see `_totals`)
    _counted: int = field(default=0, init=False, repr=False)
    _tokens: tuple[int, int] = field(default=(0, 0), init=False, repr=False)
    _most_output: Optional[int] = field(default=None, init=False, repr=False)
    _slowest_request: Optional[float] = field(default=None, init=False, repr=False)
    _slowest_tool: dict[str, float] = field(default_factory=dict, init=False, repr=False)

    def _totals(self) -> None:
        """Sum the steps not summed yet (all of them again if the list shrank: it was changed from outside)."""
        if self._counted == len(self.steps):  # all summed: the common case, at every read of the meters
            return
        if self._counted > len(self.steps):
            self._counted, self._tokens, self._most_output, self._slowest_request = 0, (0, 0), None, None
            self._slowest_tool = {}
        for s in self.steps[self._counted:]:
            self._count_step(s)
            for t in s.tools:
                self._count_tool(t)

    def _count_step(self, s: StepRecord) -> None:
        self._counted += 1
        self._tokens = (self._tokens[0] + s.input_tokens, self._tokens[1] + s.output_tokens)
        self._most_output = s.output_tokens if self._most_output is None else max(self._most_output, s.output_tokens)
        self._slowest_request = s.model_seconds if self._slowest_request is None \
            else max(self._slowest_request, s.model_seconds)

    def _count_tool(self, t: ToolRecord) -> None:
        before = self._slowest_tool.get(t.name)
        self._slowest_tool[t.name] = t.seconds if before is None else max(before, t.seconds)
    redactions: dict[str, int] = field(default_factory=dict)  # kind -> how many were hidden from the model

    @property
    def usage(self) -> Usage:
        self._totals()
        return Usage(*self._tokens)

    def most_output_tokens(self, at_least: int = 0) -> int:
        """The largest output of one request so far, or `at_least` if larger."""
        self._totals()
        return at_least if self._most_output is None else max(at_least, self._most_output)

    @property
    def slowest_request(self) -> float:
        """The longest model request so far, in simulated seconds (0 before the first)."""
        self._totals()
        return 0.0 if self._slowest_request is None else self._slowest_request

    def slowest_tool(self, name: str) -> float:
        """The longest attempt of this tool so far, among the steps' tools (0 if never run)."""
        self._totals()
        return self._slowest_tool.get(name, 0.0)

    @property
    def cost_usd(self) -> float:
        return self.pricing.cost(self.usage)

    def record_model(self, turn: Turn, started: float) -> None:
        self.steps.append(StepRecord(
            step=len(self.steps) + 1, input_tokens=turn.usage.input_tokens, output_tokens=turn.usage.output_tokens,
            model_seconds=self.clock.elapsed - started, finish_reason=turn.finish_reason, text=turn.text,
            tool_calls=[{"id": c.id, "name": c.name, "arguments": c.arguments} for c in turn.tool_calls],
            started=started))
        self._totals()  # the new step is summed here
        self.trace.on_step(self.steps[-1], self.pricing.cost(turn.usage))

    def count_redactions(self, found: dict[str, int]) -> None:
        """What a part hid from the model in a tool result (credentials, stack traces, internal hosts)."""
        for kind, n in found.items():
            self.redactions[kind] = self.redactions.get(kind, 0) + n

    def record_tool(self, call_id: str, name: str, args: dict[str, Any], outcome: Any,
                    exc: Exception | str | None, started: float, ended: float) -> None:
        """`exc` is the exception the tool raised, or its class name (a tool run in another process)."""
        raised = exc if isinstance(exc, str) or exc is None else type(exc).__name__
        record = ToolRecord(call_id, name, args, ok=bool(outcome and outcome.ok),
                            outcome=asdict(outcome) if outcome is not None else None,
                            exception=raised or None, started=started, seconds=ended - started)
        (self.steps[-1].tools if self.steps else self.orphan_tools).append(record)
        if self.steps:
            self._totals()
            self._count_tool(record)
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
