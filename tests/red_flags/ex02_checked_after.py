"""Red flag: the budget is checked only against what was already spent ("if budget.exhausted(): stop").

The request that crosses the limit is sent anyway, and it is the most expensive one of the run: the
context only grows. The run overshoots by a whole step."""
from dataclasses import dataclass
from typing import Optional

from reference import StopReason, Usage, to_wire
from reference.tokens import request_tokens


@dataclass(frozen=True)
class Spend:
    steps: int = 0
    tokens: int = 0
    seconds: float = 0.0
    cost_usd: float = 0.0


@dataclass
class Budget:
    max_steps: Optional[int] = None
    max_tokens: Optional[int] = None
    max_seconds: Optional[float] = None
    max_cost_usd: Optional[float] = None
    output_reserve: int = 256

    @classmethod
    def from_limits(cls, limits):
        return cls(limits.max_steps, limits.max_tokens, limits.max_seconds, limits.max_cost_usd)

    def next_request(self, episode, messages):  # it can estimate; it just never asks
        usage = Usage(request_tokens(to_wire(messages, episode.tools.specs, episode.scenario.model.wire)),
                      self.output_reserve)
        return Spend(1, usage.total_tokens, 0.0, episode.ledger.pricing.cost(usage))

    def before_request(self, episode, messages, step):
        ledger = episode.ledger
        if self.max_steps is not None and len(ledger.steps) >= self.max_steps:
            return StopReason.MAX_STEPS, f"step limit {self.max_steps}"
        if self.max_tokens is not None and ledger.usage.total_tokens > self.max_tokens:
            return StopReason.TOKEN_BUDGET, f"token budget {self.max_tokens:,} exhausted"
        if self.max_cost_usd is not None and ledger.cost_usd > self.max_cost_usd:
            return StopReason.COST_BUDGET, f"cost budget ${self.max_cost_usd} exhausted"
        if self.max_seconds is not None and episode.clock.elapsed > self.max_seconds:
            return StopReason.TIME_BUDGET, f"time budget {self.max_seconds} s exhausted"
        return None

    def before_tool(self, episode, call):
        return None
