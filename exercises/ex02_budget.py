"""Exercise 2: a budget that stops the run before it overshoots, and says which limit tripped.

The task
    `max_steps` alone is not a budget: one step can cost a few hundred tokens or tens of thousands,
    and a slow tool can eat a minute. Write `Budget`, the part the guarded loop
    (reference/loops/guarded.py) asks before it spends anything:

        before_request(episode, messages, step) -> Stop | None    before every model request
        before_tool(episode, call) -> Stop | None                 before every tool run

    `step` is the loop's own count of the requests it has made (0 before the first); the step limit
    counts the run's requests in `episode.ledger.steps`, so a loop that counts otherwise (per user
    turn, say) cannot slip past it.

    A `Stop(reason, detail)` says why to stop, with one line that names the limit, e.g.
    "token budget: 56,404 used + ~33,463 for the next request > 60,000". None means: go on.
    There are four limits: steps, tokens, simulated seconds and dollars. Any of them may be None (not
    enforced). The first limit that *would be crossed* stops the run.

    What was spent is in the harness's books: `episode.ledger` (`.steps`, one StepRecord per model
    request with its tool runs; `.usage`; `.cost_usd`; `.pricing`) and `episode.clock.elapsed`.

What you are given
    `Spend` (reference/parts/budget.py: what was spent, or what one request is expected to spend),
    `Stop`, and the dataclass `Budget` below with its limits, its `output_reserve` and `from_limits`.
    Its five methods are yours; the three helpers answer the two questions above: `spent(episode)`
    (what the run has spent so far), `next_request(episode, messages)` (what the request about to be sent would spend) and
    `tool_seconds(episode, name)` (how long that tool is expected to take).
    episode.ledger, episode.clock    what was spent (see above); StepRecord.model_seconds and
                                     StepRecord.tools (ToolRecord: .name, .seconds) time the past
    to_wire(messages, episode.tools.specs, episode.scenario.model.wire) and
    reference.sim.tokens.request_tokens(...)
                                     the request as the provider receives it, and its input tokens
    episode.ledger.pricing.cost(Usage(...))
                                     what a number of tokens costs

What the tests expect (tests/test_ex02_budget.py)
    - token-blowup, cost-blowup and slow-tools stop on their own budget, and the incident (which set
      no budget of its own: the tests give it the troubleshoot tier's limits from
      reference/parts/budget.py) on a budget within ten model calls; the happy path is not affected;
    - no run overshoots a limit when the next request or tool run would: the check is made before
      spending; it does not stop while the next request still fits, and a request or tool run that
      exactly fills a limit may still go;
    - the next-request estimate covers what the provider bills (input and output), on every wire;
      the first request is expected to take no time, a later one as long as the slowest before it;
    - `spent` reads the ledger and the clock (tool time included); each tool is timed by its own
      earlier runs; a slow model trips the time budget before the request;
    - the step limit trips as MAX_STEPS (also when already past it), counted in the ledger; a limit of
      zero, any of the four, stops before the first request: every request and tool run takes time, so
      with no time left nothing starts, not even what is expected to take none;
    - the detail names the limit that tripped; two runs in one process share nothing.

Check your work with `loopkit check ex02`; ask for a hint with `loopkit hint ex02`.
"""
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
        raise NotImplementedError("Exercise 2: read what was spent from episode.ledger and episode.clock")

    def next_request(self, episode: Episode, messages: Sequence[Message]) -> Spend:
        raise NotImplementedError("Exercise 2: estimate the request you are about to send")

    def before_request(self, episode: Episode, messages: Sequence[Message], step: int) -> Optional[Stop]:
        raise NotImplementedError("Exercise 2: would the next request cross a limit?")

    def tool_seconds(self, episode: Episode, name: str) -> float:
        raise NotImplementedError("Exercise 2: how long did this tool take before?")

    def before_tool(self, episode: Episode, call: ToolCall) -> Optional[Stop]:
        raise NotImplementedError("Exercise 2: would this tool run cross the time budget?")
