"""Red flag: the step count is the only budget ("we set max_steps to 10, that's our limit").

One step can cost a few hundred tokens or tens of thousands; a slow tool can take a minute. Counting
steps says nothing about either."""
from dataclasses import dataclass
from typing import Optional

from reference import StopReason


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

    def before_request(self, episode, messages, step):
        if self.max_steps is not None and len(episode.ledger.steps) >= self.max_steps:
            return StopReason.MAX_STEPS, f"step limit: {self.max_steps} steps"
        return None

    def before_tool(self, episode, call):
        return None

    def next_request(self, episode, messages):
        raise NotImplementedError("this budget never looks at what a request costs")
