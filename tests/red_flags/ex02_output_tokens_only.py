"""Red flag: only the model's output is counted ("tokens = what the model generated").

The input is most of the bill: the whole history and the tool schemas are sent again with every
request, and they grow with every step. A budget on output tokens barely moves."""
from dataclasses import dataclass
from typing import Optional

from reference import StopReason, Usage


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

    def spent(self, episode):
        ledger = episode.ledger
        return Spend(len(ledger.steps), ledger.usage.output_tokens, episode.clock.elapsed,
                     ledger.pricing.cost(Usage(0, ledger.usage.output_tokens)))

    def next_request(self, episode, messages):
        usage = Usage(0, self.output_reserve)  # the flaw: the request itself is not counted
        seconds = max((s.model_seconds for s in episode.ledger.steps), default=0.0)
        return Spend(1, usage.total_tokens, seconds, episode.ledger.pricing.cost(usage))

    def before_request(self, episode, messages, step):
        used, nxt = self.spent(episode), self.next_request(episode, messages)
        if self.max_steps is not None and used.steps >= self.max_steps:
            return StopReason.MAX_STEPS, f"step limit: {self.max_steps}"
        if self.max_tokens is not None and used.tokens + nxt.tokens > self.max_tokens:
            return StopReason.TOKEN_BUDGET, f"token budget: {used.tokens:,} + {nxt.tokens:,} > {self.max_tokens:,}"
        if self.max_cost_usd is not None and used.cost_usd + nxt.cost_usd > self.max_cost_usd:
            return StopReason.COST_BUDGET, f"cost budget: ${used.cost_usd:.4f} + ${nxt.cost_usd:.4f} > ${self.max_cost_usd}"
        if self.max_seconds is not None and used.seconds + nxt.seconds > self.max_seconds:
            return StopReason.TIME_BUDGET, f"time budget: {used.seconds:.1f} + {nxt.seconds:.1f} > {self.max_seconds} s"
        return None

    def before_tool(self, episode, call):
        seconds = max((t.seconds for s in episode.ledger.steps for t in s.tools if t.name == call.name), default=0.0)
        if self.max_seconds is not None and episode.clock.elapsed + seconds > self.max_seconds:
            return StopReason.TIME_BUDGET, f"time budget: {self.max_seconds} s"
        return None
