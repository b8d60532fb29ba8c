"""Lesson 2: exits and budgets. Stop for the right reason, before the step that would overshoot.

A run can end in four kinds of way (`StopReason.kind` in reference/core/result.py):

    kind         stop reasons                                  who decides
    normal       completed                                     the model: an answer without tool calls
    resource     max_steps, token_budget, cost_budget,         this module: a limit would be crossed
                 time_budget
    guard        repeated_call, alternation, same_result,      lesson 3's guard (lesson 5's circuit
                 circuit_open                                  breaker): the model is going round in circles
    no progress  no_progress                                   lesson 3: steps go by without new information

(`error` is the fifth kind: the run could not continue at all, e.g. the provider kept failing. `user`
is the sixth: the user pressed stop (`cancelled`). Neither is an exit a loop chooses.)

`max_steps` is only one resource. One step can cost a few hundred tokens or tens of thousands, so
a step limit alone lets a run burn the budget in a handful of steps (token-blowup, cost-blowup), or
sit for minutes on slow tools (slow-tools). `RunBudget` watches four meters at once, steps, tokens,
simulated seconds and dollars, and the first limit to trip stops the run. It checks *before* spending:

- before each model request, with that request in mind: its input tokens are counted exactly as the
  provider will count them (the kit's estimator over the request in its wire format, the same count
  the scripted model bills), plus a reserve for the output; its seconds are the slowest earlier
  request's. If what is spent plus what the request would spend crosses a limit, the request is
  not sent;
- before each tool run, with that tool's expected latency (the slowest of its earlier calls in this
  run, from the ledger): a 20-second report is not started with 15 seconds left.

Checking after the request instead lets the run overshoot by a whole step, and the last step is the
most expensive one: the context only grows.

Per-intent policy. A lookup and a troubleshooting session do not need the same limits. `policy_for
(intent)` gives the tier of a task family (`IntentPolicy`), measured with reference/runs/fleet.py: the
P95 of the steps and spend of successful runs plus a margin. `RunBudget.for_episode(episode)`
combines the scenario's `limits` (the deployment's or the user's) with the tier of its `intent`.

The user's limits are the contract: a fitted tier fills only the limits the user left unset (the step
limit if the user wrote none; the budget, tokens, seconds and dollars as one amount, if the user wrote
none of it), and nothing for a run the user allowed more steps than the tier was fitted on. A tier is
what the family's usual run needs; a user who allows 30 steps for a long task has said this run is not
the usual one, and cutting it at the troubleshoot tier's 11 steps, or at its 11,000 tokens (which a
25-step task overruns), would be a false stop on legitimate work. Where the user set a step cap within
the tier's and no budget, the tier's budget is what was missing. A limit set by neither is not enforced.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from ..harness.episode import Episode
from ..core.messages import Message, ToolCall
from ..core.model import Usage
from ..core.result import StopReason
from ..loops import hooks
from ..loops.hooks import Stop
from ..sim.scenario.schema import LimitsDef


# the four kinds of exit (and `error`), each with its stop reasons, read from reference/core/result.py
KINDS: dict[str, tuple[StopReason, ...]] = {
    kind: tuple(r for r in StopReason if r.kind == kind) for kind in ("normal", "resource", "guard", "no_progress", "error", "user")}


# ---------------------------------------------------------------- per-intent tiers

@dataclass(frozen=True)
class IntentPolicy:
    """The limits of one task family. None means the tier sets no such limit."""

    max_steps: int
    max_run_tokens: Optional[int] = None
    max_seconds: Optional[float] = None
    max_cost_usd: Optional[float] = None
    note: str = ""


# Measured, not guessed: each fitted tier is `run_fleet(FAMILIES[intent]).recommend().policy()` (reference/
# fleet.py), the P95 of the successful runs of its task family plus a margin, rounded up; tests/test_fleet.py
# checks that they still agree. `general` is the deployment-wide safety net for requests of no known family: loose on purpose,
# so that it never cuts a task the kit ships, and still far below "50 steps and no budget".
TIERS: dict[str, IntentPolicy] = {
    "lookup": IntentPolicy(max_steps=5, max_run_tokens=2_000, max_seconds=6.1, max_cost_usd=0.0076,
                           note="fitted on the fleet of fleet-lookup"),
    "troubleshoot": IntentPolicy(max_steps=11, max_run_tokens=11_000, max_seconds=19, max_cost_usd=0.062,
                                 note="fitted on the fleet of fleet-troubleshoot"),
    "general": IntentPolicy(max_steps=12, max_run_tokens=100_000, max_seconds=300, max_cost_usd=0.50,
                            note="safety net for requests of no known family (not fitted)"),
}


def policy_for(intent: str) -> IntentPolicy:
    """The tier of an intent; an intent the kit has no tier for gets the `general` safety net."""
    return TIERS.get(intent, TIERS["general"])


# ---------------------------------------------------------------- the budget

@dataclass(frozen=True)
class Spend:
    """What was spent, or what one request or tool run is expected to spend."""

    steps: int = 0
    tokens: int = 0
    seconds: float = 0.0
    cost_usd: float = 0.0


LIMIT_NAMES = ("max_steps", "max_run_tokens", "max_seconds", "max_cost_usd")


def user_set(limits: LimitsDef, name: str) -> bool:
    """Did the user (or the deployment) write this limit? A default `max_steps` is not theirs to keep."""
    return name in limits.model_fields_set and getattr(limits, name) is not None


def tier_fills(limits: LimitsDef, tier: IntentPolicy) -> tuple[str, ...]:
    """The user's limits are the contract: a tier fills only what the user left unset, and nothing for a run the
    user allowed more steps than the tier was fitted on (it describes the family's usual run, not this one).

    The budget (tokens, seconds, dollars) is one amount in three units: a user who wrote any of it has set
    the budget, and a tier's figure in another unit would tighten it."""
    if user_set(limits, "max_steps") and limits.max_steps > tier.max_steps:
        return ()
    budget = ("max_run_tokens", "max_seconds", "max_cost_usd")
    steps = () if user_set(limits, "max_steps") else ("max_steps",)
    return steps + (() if any(user_set(limits, n) for n in budget) else budget)


@dataclass
class RunBudget(hooks.Budget):
    """Steps, tokens, simulated seconds and dollars; the first limit that would be crossed stops the run.

    Implements the `Budget` protocol of reference/loops/guarded.py. Spending is read from the episode's
    ledger and clock (the harness keeps the books, so nothing can be counted twice or forgotten).
    """

    max_steps: Optional[int] = None
    max_run_tokens: Optional[int] = None
    max_seconds: Optional[float] = None
    max_cost_usd: Optional[float] = None
    output_reserve: int = 256  # tokens kept for the answer of the next request (a real request sends it
    #                            as max_tokens/max_output_tokens, so the output can never be larger)
    final_answer_share: float = 0.0  # the reserve for a last tool-less answer (lesson 4), as a share of the
    #   token, cost and time limits. It never refuses a request that fits: a request is sent whenever its
    #   estimate fits what is left of the *whole* limit. The reserve only tells `in_reserve` (and the trace)
    #   that the run has entered its last slice, where the degrader may have to clip results to answer.
    sources: dict[str, str] = field(default_factory=dict)  # which side set each limit, for the detail

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_limits(cls, limits: LimitsDef, source: str = "scenario limits", **options: Any) -> "RunBudget":
        budget = cls(limits.max_steps, limits.max_run_tokens, limits.max_seconds, limits.max_cost_usd, **options)
        budget.sources = {k: source for k in LIMIT_NAMES if getattr(budget, k) is not None}
        return budget

    @classmethod
    def from_policy(cls, policy: IntentPolicy, source: str = "intent tier", **options: Any) -> "RunBudget":
        limits = LimitsDef(max_steps=policy.max_steps, max_run_tokens=policy.max_run_tokens,
                           max_seconds=policy.max_seconds, max_cost_usd=policy.max_cost_usd)
        return cls.from_limits(limits, source, **options)

    @classmethod
    def for_episode(cls, episode: Episode, **options: Any) -> "RunBudget":
        """The scenario's limits, with the intent's tier filling what the user left unset (`tier_fills`)."""
        intent = episode.scenario.intent
        tier = cls.from_policy(policy_for(intent), f"{intent} tier" if intent in TIERS else "general tier")
        mine = cls.from_limits(episode.limits)
        budget = cls(**options)
        filled = tier_fills(episode.limits, policy_for(intent))
        for name in LIMIT_NAMES:
            side = tier if name in filled else mine
            setattr(budget, name, getattr(side, name))
            if getattr(side, name) is not None:
                budget.sources[name] = side.sources[name]
        return budget

    # -- what was spent, what the next step would spend ----------------------------------------
    def spent(self, episode: Episode) -> Spend:
        usage = episode.ledger.usage  # read once: `ledger.cost_usd` is the price of this usage
        return Spend(len(episode.ledger.steps), usage.total_tokens, episode.clock.elapsed,
                     episode.ledger.pricing.cost(usage))

    def next_request(self, episode: Episode, messages: Sequence[Message]) -> Spend:
        """The next model request, estimated before it is sent: the same token count the provider bills."""
        input_tokens = episode.request_tokens(messages, episode.tools.specs)  # request_tokens(to_wire(...)), kept up
        output = episode.ledger.most_output_tokens(at_least=self.output_reserve)  # as the history grows, not redone
        seconds = episode.ledger.slowest_request  # 0.0 before the first: nothing to go by
        return Spend(1, input_tokens + output, seconds, episode.ledger.pricing.cost(Usage(input_tokens, output)))

    def tool_seconds(self, episode: Episode, name: str) -> float:
        """How long a tool is expected to take: its slowest earlier call in this run (0 if never called)."""
        return episode.ledger.slowest_tool(name)

    def headroom(self, episode: Episode) -> dict[str, float]:
        """What is left of each limit (for a last answer, for a progress display)."""
        used = self.spent(episode)
        left = {"steps": (self.max_steps, used.steps), "tokens": (self.max_run_tokens, used.tokens),
                "seconds": (self.max_seconds, used.seconds), "cost_usd": (self.max_cost_usd, used.cost_usd)}
        return {k: limit - spent for k, (limit, spent) in left.items() if limit is not None}

    # -- the Budget protocol ---------------------------------------------------------------------
    def before_request(self, episode: Episode, messages: Sequence[Message], step: int) -> Optional[Stop]:
        """Would the next request cross a limit? Steps first, then tokens, cost and time (when two would
        trip at once, the first of these is reported). `step` is the loop's own count; the ledger's is used,
        so that a loop that miscounts cannot slip past the limit."""
        used = self.spent(episode)
        if self.max_steps is not None and used.steps >= self.max_steps:
            return Stop(StopReason.MAX_STEPS, f"step limit: {used.steps} model requests made, the limit is "
                        f"{self.max_steps}{self._by('max_steps')}")
        nxt = self.next_request(episode, messages)
        checks = (
            (StopReason.TOKEN_BUDGET, "token budget", "max_run_tokens", used.tokens, nxt.tokens, _int),
            (StopReason.COST_BUDGET, "cost budget", "max_cost_usd", used.cost_usd, nxt.cost_usd, _usd),
            (StopReason.TIME_BUDGET, "time budget", "max_seconds", used.seconds, nxt.seconds, _sec),
        )
        for reason, label, name, spent, more, fmt in checks:
            trip = self._over(reason, label, name, spent, more, fmt, "the next request")
            if trip:
                return trip
        return None

    def before_tool(self, episode: Episode, call: ToolCall) -> Optional[Stop]:
        """Would this tool run cross the time budget, if it takes as long as it took before?"""
        more = self.tool_seconds(episode, call.name)
        return self._over(StopReason.TIME_BUDGET, "time budget", "max_seconds", episode.clock.elapsed, more, _sec,
                          call.name)

    # -- helpers ---------------------------------------------------------------------------------------
    def _over(self, reason: StopReason, label: str, name: str, spent: float, more: float, fmt: Any,
              what: str) -> Optional[Stop]:
        """A stop when `more` does not fit what is left of the whole limit. The final-answer reserve is not
        taken off here: refusing a request that fits would end a run the model might have finished. With
        nothing left, nothing starts, not even what is expected to cost nothing (a tool never run yet)."""
        limit = getattr(self, name)
        if limit is None or (spent < limit and spent + more <= limit):
            return None
        return Stop(reason, f"{label}: {fmt(spent)} used + ~{fmt(more)} for {what} > {fmt(limit)}{self._by(name)}")


    def _by(self, name: str) -> str:
        source = self.sources.get(name)
        return f" ({source})" if source else ""

    def describe(self) -> str:
        parts = [f"max_steps {self.max_steps}" if self.max_steps is not None else None,
                 f"max_run_tokens {_int(self.max_run_tokens)}" if self.max_run_tokens is not None else None,
                 f"max_seconds {_sec(self.max_seconds)}" if self.max_seconds is not None else None,
                 f"max_cost_usd {_usd(self.max_cost_usd)}" if self.max_cost_usd is not None else None]
        return ", ".join(p for p in parts if p) or "no limits"


def _int(n: float) -> str:
    return f"{int(round(n)):,}"


def _usd(x: float) -> str:
    text = f"{x:,.4f}".rstrip("0")  # $0.25, $0.1554, $1.50
    return "$" + (text + "00" if text.endswith(".") else text + "0" if len(text.split(".")[1]) == 1 else text)


def _sec(s: float) -> str:
    return f"{s:,.1f} s"
