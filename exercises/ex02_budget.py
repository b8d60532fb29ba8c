"""Exercise 2: a budget that stops the run before it overshoots, and says which limit tripped.

The task
    `max_steps` alone is not a budget: one step can cost a few hundred tokens or tens of thousands,
    and a slow tool can eat a minute. Write `Budget`, the part the guarded loop
    (reference/loops/guarded.py) asks before it spends anything:

        before_request(episode, messages, step) -> Trip | None    before every model request
        before_tool(episode, call) -> Trip | None                 before every tool run

    A Trip is `(StopReason, detail)`: why to stop, and one line that names the limit, e.g.
    "token budget: 56,404 used + ~33,463 for the next request > 60,000". None means: go on.
    There are four limits: steps, tokens, simulated seconds and dollars. Any of them may be None (not
    enforced). The first limit that *would be crossed* stops the run.

    What was spent is in the harness's books: `episode.ledger` (`.steps`, one StepRecord per model
    request with its tool runs; `.usage`; `.cost_usd`; `.pricing`) and `episode.clock.elapsed`.

Steps
    1. `spent(episode)`: a Spend of the steps so far (model requests), the tokens (input and output),
       the simulated seconds (everything on the clock) and the cost.
    2. `next_request(episode, messages)`: what the request you are about to send would spend. Count
       its input tokens the way the provider bills them: `reference.sim.tokens.request_tokens` over
       `reference.to_wire(messages, episode.tools.specs, episode.scenario.model.wire)`. Add
       `self.output_reserve` for its answer. Its cost follows from `episode.ledger.pricing.cost(Usage(...))`;
       for its seconds, go by the slowest earlier request (`StepRecord.model_seconds`; 0 for the first).
    3. `before_request`: return a MAX_STEPS trip when `max_steps` requests were made; otherwise a
       TOKEN_BUDGET, COST_BUDGET or TIME_BUDGET trip when what was spent plus the next request would go
       over that limit. Put the limit's name and value in the detail.
    4. `tool_seconds(episode, name)`: how long that tool is expected to take: the slowest of its earlier
       runs in this run (`StepRecord.tools`, each a ToolRecord with `.name` and `.seconds`); 0 if none.
    5. `before_tool`: a TIME_BUDGET trip when the clock plus that tool's expected seconds would go over.

Check your work with `loopkit check ex02`; ask for a hint with `loopkit hint ex02`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from reference import Episode, StopReason, ToolCall, Usage, to_wire  # noqa: F401  (you will need them)
from reference.core.messages import Message
from reference.sim.scenario.schema import LimitsDef
from reference.sim.tokens import request_tokens  # noqa: F401

Trip = tuple[StopReason, str]


@dataclass(frozen=True)
class Spend:
    """What was spent, or what one request is expected to spend."""

    steps: int = 0
    tokens: int = 0
    seconds: float = 0.0
    cost_usd: float = 0.0


@dataclass
class Budget:
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
        raise NotImplementedError("Exercise 2, step 1: read what was spent from episode.ledger and episode.clock")

    def next_request(self, episode: Episode, messages: Sequence[Message]) -> Spend:
        raise NotImplementedError("Exercise 2, step 2: estimate the request you are about to send")

    def before_request(self, episode: Episode, messages: Sequence[Message], step: int) -> Optional[Trip]:
        raise NotImplementedError("Exercise 2, step 3: would the next request cross a limit?")

    def tool_seconds(self, episode: Episode, name: str) -> float:
        raise NotImplementedError("Exercise 2, step 4: how long did this tool take before?")

    def before_tool(self, episode: Episode, call: ToolCall) -> Optional[Trip]:
        raise NotImplementedError("Exercise 2, step 5: would this tool run cross the time budget?")
