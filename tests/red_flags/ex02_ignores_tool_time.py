"""Red flag: the time budget counts model latency only ("time = sum of the LLM calls' latency").

Tools run on the same clock as the model. A 20-second report is invisible to this budget, so a run
on slow tools sails past its time limit."""
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

    def spent(self, episode):
        ledger = episode.ledger
        model_seconds = sum(s.model_seconds for s in ledger.steps)  # the flaw: tool time is left out
        return Spend(len(ledger.steps), ledger.usage.total_tokens, model_seconds, ledger.cost_usd)

    def next_request(self, episode, messages):
        usage = Usage(request_tokens(to_wire(messages, episode.tools.specs, episode.scenario.model.wire)),
                      self.output_reserve)
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
        return None  # tools are "free"
