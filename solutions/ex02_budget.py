"""Exercise 2, solved: a budget that stops the run before it overshoots, and says which limit tripped.

Why it is written this way:
- the books are the harness's (`episode.ledger`, `episode.clock`): the budget reads them and never
  keeps a second count that could drift;
- tokens are input *and* output: the input (the whole history and the tool schemas, sent again with
  every request) is most of the bill, and it grows with every step;
- the check comes *before* the spending, with the next request (or tool run) in mind, so the last
  step, the most expensive one, is not taken when it would cross a limit;
- time is the clock, which tool runs advance too, and a tool is checked against the time it took
  before: a 20-second report is not started with 15 seconds left.
(reference/parts/budget.py is the same budget with per-intent tiers on top.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from reference import Episode, StopReason, ToolCall, Usage, to_wire
from reference.core.messages import Message
from reference.sim.scenario.schema import LimitsDef
from reference.sim.tokens import request_tokens
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
        return cls(limits.max_steps, limits.max_run_tokens, limits.max_seconds, limits.max_cost_usd)

    # Step 1
    def spent(self, episode: Episode) -> Spend:
        ledger = episode.ledger
        return Spend(len(ledger.steps), ledger.usage.total_tokens, episode.clock.elapsed, ledger.cost_usd)

    # Step 2
    def next_request(self, episode: Episode, messages: Sequence[Message]) -> Spend:
        body = to_wire(messages, episode.tools.specs, episode.scenario.model.wire)
        usage = Usage(request_tokens(body), self.output_reserve)
        seconds = max((s.model_seconds for s in episode.ledger.steps), default=0.0)
        return Spend(1, usage.total_tokens, seconds, episode.ledger.pricing.cost(usage))

    # Step 3
    def before_request(self, episode: Episode, messages: Sequence[Message], step: int) -> Optional[Stop]:
        used = self.spent(episode)  # the ledger's count of requests, not the loop's `step`: the books decide
        if self.max_steps is not None and used.steps >= self.max_steps:
            return Stop(StopReason.MAX_STEPS, f"step limit: {used.steps} model requests made, the limit is {self.max_steps}")
        nxt = self.next_request(episode, messages)
        if self.max_run_tokens is not None and used.tokens + nxt.tokens > self.max_run_tokens:
            return Stop(StopReason.TOKEN_BUDGET, f"token budget: {used.tokens:,} used + ~{nxt.tokens:,} for the next "
                        f"request > {self.max_run_tokens:,}")
        if self.max_cost_usd is not None and used.cost_usd + nxt.cost_usd > self.max_cost_usd:
            return Stop(StopReason.COST_BUDGET, f"cost budget: ${used.cost_usd:.4f} used + ~${nxt.cost_usd:.4f} for the "
                        f"next request > ${self.max_cost_usd:g}")
        # a first request is expected to take no time, but none does: with no time left, nothing starts
        if self.max_seconds is not None and (used.seconds >= self.max_seconds
                                             or used.seconds + nxt.seconds > self.max_seconds):
            return Stop(StopReason.TIME_BUDGET, f"time budget: {used.seconds:.1f} s used + ~{nxt.seconds:.1f} s for the "
                        f"next request > {self.max_seconds:g} s")
        return None

    # Step 4
    def tool_seconds(self, episode: Episode, name: str) -> float:
        return max((t.seconds for s in episode.ledger.steps for t in s.tools if t.name == name), default=0.0)

    # Step 5
    def before_tool(self, episode: Episode, call: ToolCall) -> Optional[Stop]:
        if self.max_seconds is None:
            return None
        used, more = episode.clock.elapsed, self.tool_seconds(episode, call.name)
        if used >= self.max_seconds or used + more > self.max_seconds:  # a tool never run is not free
            return Stop(StopReason.TIME_BUDGET, f"time budget: {used:.1f} s used + ~{more:.1f} s for {call.name} "
                        f"> {self.max_seconds:g} s")
        return None
