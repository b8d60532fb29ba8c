"""Exercise 5's core, handed to its stretch exercise so the stretch does not depend on yours being finished.

These are the core's answers (solutions/ex05_tool_errors.py): do the core first, without reading this
file. The stretch (exercises/ex05b_errors_stretch.py) imports them and subclasses `RetryingExecutor`.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Optional, TYPE_CHECKING

from ...core.messages import ToolCall, ToolMessage
from ...loops.hooks import Executor
from .redaction import safe_text

if TYPE_CHECKING:
    from ...harness.episode import Episode
    from ...sim.tools import ToolOutcome

__all__ = ["Failure", "GIVE_UP", "NEXT_STEP", "RetryingExecutor", "backoff_seconds", "classify", "translate"]


@dataclass(frozen=True)
class Failure:
    error_type: str
    retryable: bool
    retry_after: Optional[float] = None
    detail: Optional[str] = None  # text the tool wrote for its caller; never an exception's text
    code: Optional[str] = None  # a business error code


# Step 1: the taxonomy, in one place.
def classify(outcome: Optional["ToolOutcome"], exc: Optional[BaseException] = None) -> Optional[Failure]:
    if exc is not None:
        if isinstance(exc, TimeoutError):
            return Failure("timeout", True)
        if isinstance(exc, ConnectionError):
            return Failure("connection_error", True)
        return Failure("internal_error", False)  # a bug does not heal on retry
    assert outcome is not None
    if outcome.ok:
        body = outcome.data
        if isinstance(body, dict) and body.get("success") is False:  # HTTP 200, and it failed
            return Failure("rejected", False, detail=body.get("error_message"), code=body.get("error_code"))
        return None
    status = outcome.http_status
    if status == 429:
        return Failure("rate_limited", True, retry_after=outcome.retry_after, detail=outcome.message)
    if status >= 500 or status == 408:
        return Failure("unavailable", True, detail=outcome.message)
    kinds = {400: "invalid_argument", 422: "invalid_argument", 401: "permission_denied", 403: "permission_denied",
             404: "not_found"}
    return Failure(kinds.get(status, "rejected"), False, detail=outcome.message)


# Step 2: exponential backoff with "equal jitter": half fixed, half random, capped.
def backoff_seconds(attempt: int, rng: random.Random, base: float = 0.5, cap: float = 8.0) -> float:
    ceiling = min(cap, base * 2 ** (attempt - 1))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


NEXT_STEP = {
    "invalid_argument": "Correct the arguments as described and call the tool again.",
    "not_found": "Check the arguments; if they are right, tell the user nothing was found.",
    "permission_denied": "Do not call it again; tell the user what could not be done.",
    "rejected": "The same request will be refused again: tell the user the reason.",
    "invalid_json": "Send the arguments again as one JSON object that matches the tool's schema.",
    "unknown_tool": "Call one of the available tools, by its exact name.",
}
GIVE_UP = "Do not call it again now: use an alternative tool if one is listed, or answer with what you have."


# Step 3: what the model reads. Structured, actionable, and nothing from an exception.
def translate(call: ToolCall, failure: Failure, attempts: int = 1, alternatives: Optional[list[str]] = None,
              **extra: Any) -> ToolMessage:
    body: dict[str, Any] = {"ok": False, "error_type": failure.error_type, "retryable": False,
                            "message": f"'{call.name}' failed ({failure.error_type.replace('_', ' ')})."}
    detail = safe_text(failure.detail)  # a tool's own words, only if they hold nothing internal
    if detail:
        body["message"] += " The service said: " + detail
    if failure.code and safe_text(failure.code) and failure.code.replace("_", "").isalnum():
        body["error_code"] = failure.code
    if failure.retryable:
        body["message"] += f" It was retried {attempts - 1} time(s) in code."
    if failure.error_type == "internal_error":
        body["message"] += " This was not caused by your arguments, and calling it again will not help."
    body.update({k: v for k, v in extra.items() if v is not None})
    if alternatives:
        body["alternatives"] = alternatives
    body["instruction"] = NEXT_STEP.get(failure.error_type, GIVE_UP)
    return ToolMessage(call.id, json.dumps(body, ensure_ascii=False), is_error=True)


class RetryingExecutor(Executor):
    """The core's executor without its `execute`: the run's retry state and `run_with_retries`."""

    def __init__(self, episode: "Episode", max_attempts: int = 3):
        self.max_attempts = max_attempts
        self.max_seconds = episode.limits.max_seconds
        self.rng = random.Random(f"ex05:{episode.scenario.name}")  # seeded: a run waits the same every time
        self.alternatives = {t.name: list(t.alternatives) for t in episode.scenario.tools}

    # Run it, retrying only what can heal, within attempts and the time budget.
    def run_with_retries(self, episode: "Episode", call: ToolCall, args: dict[str, Any]):
        for attempt in range(1, self.max_attempts + 1):
            started = episode.clock.elapsed
            try:
                outcome = episode.tools.invoke(call.name, args, call.id)
                failure = classify(outcome)
            except Exception as exc:
                outcome, failure = None, classify(None, exc)
            if failure is None or not failure.retryable or attempt == self.max_attempts:
                return outcome, failure, attempt
            wait = failure.retry_after if failure.retry_after is not None else backoff_seconds(attempt, self.rng)
            took = episode.clock.elapsed - started
            if self.max_seconds is not None and episode.clock.elapsed + wait + took > self.max_seconds:
                return outcome, failure, attempt  # another attempt would not fit in the budget
            episode.clock.sleep(wait)
        raise AssertionError("unreachable")

