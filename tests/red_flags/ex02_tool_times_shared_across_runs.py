"""Red flag (written blind, from the exercise docstring alone): each tool's slowest time kept on the class, so the next run in the process starts with it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from reference import Episode, StopReason, ToolCall, Usage, to_wire  # noqa: F401  (you will need them)
from reference.core.messages import Message
from reference.sim.scenario.schema import LimitsDef
from reference.sim.tokens import request_tokens  # noqa: F401
from reference.loops import hooks
from reference.loops.hooks import Stop  # Stop(reason, detail): why to stop, in one line
from reference.parts.budget import Spend  # given: steps, tokens, seconds, cost_usd (all default 0)


@dataclass
class Budget(hooks.Budget):  # the protocol of the guarded loop's budget hook
    max_steps: Optional[int] = None
    max_run_tokens: Optional[int] = None
    max_seconds: Optional[float] = None
    max_cost_usd: Optional[float] = None
    output_reserve: int = 256  # tokens counted for the answer of the next request

    @classmethod
    def from_limits(cls, limits: LimitsDef) -> "Budget":
        """The budget of a scenario's `limits` block."""
        return cls(limits.max_steps, limits.max_run_tokens, limits.max_seconds, limits.max_cost_usd)

    def spent(self, episode: Episode) -> Spend:
        usage = episode.ledger.usage
        return Spend(steps=len(episode.ledger.steps), tokens=usage.input_tokens + usage.output_tokens,
                     seconds=episode.clock.elapsed, cost_usd=episode.ledger.pricing.cost(usage))

    def next_request(self, episode: Episode, messages: Sequence[Message]) -> Spend:
        body = to_wire(messages, episode.tools.specs, episode.scenario.model.wire)
        input_tokens = request_tokens(body)
        output_tokens = max([self.output_reserve] + [s.output_tokens for s in episode.ledger.steps])
        seconds = max([0.0] + [s.model_seconds for s in episode.ledger.steps])
        cost = episode.ledger.pricing.cost(Usage(input_tokens, output_tokens))
        return Spend(steps=1, tokens=input_tokens + output_tokens, seconds=seconds, cost_usd=cost)

    def before_request(self, episode: Episode, messages: Sequence[Message], step: int) -> Optional[Stop]:
        used = self.spent(episode)
        if self.max_steps is not None and used.steps >= self.max_steps:
            return Stop(StopReason.MAX_STEPS,
                        f"step limit: {used.steps} model requests made, the limit is {self.max_steps}")
        nxt = self.next_request(episode, messages)
        if self.max_run_tokens is not None and used.tokens + nxt.tokens > self.max_run_tokens:
            return Stop(StopReason.TOKEN_BUDGET, f"token budget: {used.tokens:,} used + ~{nxt.tokens:,} "
                        f"for the next request > {self.max_run_tokens:,}")
        if self.max_cost_usd is not None and used.cost_usd + nxt.cost_usd > self.max_cost_usd:
            return Stop(StopReason.COST_BUDGET, f"cost budget: ${used.cost_usd:.4f} used + ~${nxt.cost_usd:.4f} "
                        f"for the next request > ${self.max_cost_usd:.4f}")
        if self.max_seconds is not None and used.seconds + nxt.seconds > self.max_seconds:
            return Stop(StopReason.TIME_BUDGET, f"time budget: {used.seconds:.1f} s used + ~{nxt.seconds:.1f} s "
                        f"for the next request > {self.max_seconds:.1f} s")
        return None

    # MISTAKE: a memo of each tool's slowest run, kept on the class so that it "learns" across runs: a
    # second run in the same process starts with the first run's timings
    _slowest_tool = {}

    def tool_seconds(self, episode: Episode, name: str) -> float:
        seen = max([0.0] + [t.seconds for s in episode.ledger.steps for t in s.tools if t.name == name])
        Budget._slowest_tool[name] = max(seen, Budget._slowest_tool.get(name, 0.0))
        return Budget._slowest_tool[name]

    def before_tool(self, episode: Episode, call: ToolCall) -> Optional[Stop]:
        if self.max_seconds is None:
            return None
        used = episode.clock.elapsed
        more = self.tool_seconds(episode, call.name)
        if used + more > self.max_seconds:
            return Stop(StopReason.TIME_BUDGET, f"time budget: {used:.1f} s used + ~{more:.1f} s "
                        f"for {call.name} > {self.max_seconds:.1f} s")
        return None
