"""Retries that know the rest of the budget: when to wait and try again, when to give up, when to stop.

One rule for a tool call and for a model request. An attempt or a backoff is started only if, after
it, there is still time for the next model request and for the final answer (each estimated as the
slowest request so far). Tokens are not at stake: a failed attempt bills none. A Retry-After longer
than the time left (or than the longest wait the policy accepts) ends the retries at once, and the
run with a *resource* stop whose detail tells the user "retry after N s": going round again would
only meet the same answer, and a loop guard or a circuit breaker should not be the one to say so.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from ...harness.episode import Episode
from .taxonomy import Failure


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 3  # attempts per call, the first included
    base_seconds: float = 0.5  # the first backoff, before jitter
    multiplier: float = 2.0
    max_backoff_seconds: float = 8.0
    # The longest single wait we accept (Retry-After included). For comparison, provider-facts notes
    # that the openai SDK (3.57) does not retry when Retry-After is over 120 s, while the anthropic
    # SDK (2.14) waits whatever it is told. Inside one agent run, a minute is already a lot.
    max_wait_seconds: float = 60.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Wait after failed attempt number `attempt` (1-based): exponential, capped, "equal jitter"
        (half fixed, half random) so that many clients retrying at once do not stay in step."""
        ceiling = min(self.max_backoff_seconds, self.base_seconds * self.multiplier ** (attempt - 1))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


@dataclass(frozen=True)
class Decision:
    """What to do after a failed attempt: wait this long and retry, or give up (and why); `stop` when the
    wait asked for is longer than the run can afford, so the run itself should end (a resource stop)."""

    wait: Optional[float] = None
    gave_up: Optional[str] = None
    stop: bool = False


def time_left(episode: Episode, max_seconds: Optional[float], requests_after: int) -> Optional[float]:
    """Seconds the run may still spend on attempts and waits, keeping `requests_after` model requests' worth
    of time (the next request and the final answer). None when there is no time budget."""
    if max_seconds is None:
        return None
    slowest = max((s.model_seconds for s in episode.ledger.steps), default=0.0)
    return max_seconds - episode.clock.elapsed - requests_after * slowest


def decide(failure: Failure, attempt: int, policy: RetryPolicy, rng: random.Random, left: Optional[float],
           took: float) -> Decision:
    """After failed attempt number `attempt`, which took `took` seconds, with `left` seconds to spare."""
    if not failure.retryable:
        return Decision()
    if attempt >= policy.max_attempts:
        return Decision(gave_up="no attempts left")
    if failure.retry_after is not None:
        can_wait = policy.max_wait_seconds if left is None else min(policy.max_wait_seconds, max(0.0, left - took))
        if failure.retry_after > can_wait:
            return Decision(gave_up=f"the service asks to retry after {failure.retry_after:g} s, longer than the "
                                    f"{can_wait:.1f} s this run can still wait", stop=True)
        wait = failure.retry_after
    else:
        wait = policy.backoff(attempt, rng)
    if left is not None and wait + took > left:
        return Decision(gave_up="another attempt would not fit in the run's time budget")
    return Decision(wait=wait)
