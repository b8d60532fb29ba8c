"""Exercise 5 (core): tool errors. Retry what can heal, translate the rest, never raise.

The task
    Write the executor of the guarded loop (reference/loops/guarded.py, protocol `Executor`): the part
    that decides how one tool call runs. The tests plug it in like this:

        executor = make_executor(episode)
        result = guarded_loop(episode, max_steps, Parts(executor=executor))

    and play the lesson-5 scenarios: a flaky tool (`flaky-timeout`), a 429 with Retry-After
    (`rate-limited`), HTTP 200 with `success: false` (`business-failure`) and a stack trace full of
    secrets (`exception-secret`), plus tools built in the tests that fail every way a tool can.
    The stretch exercise (exercises/ex05b_errors_stretch.py) adds malformed calls, checked against
    the tool's schema before they run, and circuit breakers.

What you have
    `episode.tools.invoke(name, args, call_id)` runs a tool once and returns a `ToolOutcome` (`ok`,
    `data`, `http_status`, `retry_after`, `message`) or RAISES (ToolTimeout, which is a TimeoutError;
    ConnectionResetError; RuntimeError...). Every attempt is recorded in the ledger.
    `episode.clock.sleep(seconds)` waits on the simulated clock (never `time.sleep`).
    `episode.scenario.tools` have `alternatives` (other tools that can do the job).
    `reference.parts.executor.redaction.safe_text(text)` returns the text if it holds nothing internal
    (stack trace, path, SQL, host, secret), else None.

What the tests check (tests/test_ex05_tool_errors.py)
    - the scenarios above meet their `expect` blocks, and `execute` never raises, whatever the tool
      does (an exception, a timeout, arguments that are not JSON, a tool that does not exist): every
      call gets an error result;
    - failures are told apart: timeouts, connection errors, HTTP 408, 429 and 5xx can heal and are
      retried in code, unseen by the model when a retry succeeds; invalid arguments (400/422), auth
      (401/403), not found, other 4xx, a bug (any other exception) and HTTP 200 with `success: false`
      are not retried, whatever the tool says about itself (`classify` returns None only for a real
      success);
    - retries wait on the simulated clock: Retry-After when given, else an exponential backoff with
      jitter (`backoff_seconds`: equal jitter, seeded, up to `cap`); at most `max_attempts` attempts
      (1: no retry), and no retry that could not finish inside the run's time limit: its wait plus one
      more attempt as long as the last one must fit (one that exactly fits is made);
    - the model reads a structured error result it can act on (`translate`): its kind, whether it is
      retryable and what to do next, with the tool's `alternatives` when it has any; once the retries
      are spent, the kind is the last failure's, the message says how many retries were made, and it is
      not retryable (retrying was the code's job, and it is done);
    - nothing internal (stack trace, path, SQL, host, secret) ever reaches the model, on any error path;
    - two runs in one process share nothing.

Check your work with `loopkit check ex05`; ask for a hint with `loopkit hint ex05`.
"""
from __future__ import annotations

import json  # noqa: F401  (you will need it)
import random
from dataclasses import dataclass
from typing import Any, Optional

from reference import Episode, StopReason, ToolCall, ToolMessage, ToolOutcome, ToolSpec  # noqa: F401
from reference.loops.hooks import Executor, Stop  # the executor's protocol; why a run stops
from reference.parts.executor.redaction import safe_text  # noqa: F401


@dataclass(frozen=True)
class Failure:
    # timeout, connection_error, rate_limited, unavailable (408, 5xx), internal_error (a bug), invalid_argument
    # (400, 422), permission_denied (401, 403), not_found (404), rejected (other 4xx, and HTTP 200 with
    # `success: false`, whose `data` holds `error_code` and `error_message`)
    error_type: str
    retryable: bool
    retry_after: Optional[float] = None
    detail: Optional[str] = None  # text the tool wrote for its caller; never an exception's text
    code: Optional[str] = None  # a business error code


def classify(outcome: Optional[ToolOutcome], exc: Optional[BaseException] = None) -> Optional[Failure]:
    raise NotImplementedError("Exercise 5, step 1: classify a tool's outcome or exception")


def backoff_seconds(attempt: int, rng: random.Random, base: float = 0.5, cap: float = 8.0) -> float:
    raise NotImplementedError("Exercise 5, step 2: exponential backoff with jitter")


def translate(call: ToolCall, failure: Failure, attempts: int = 1, alternatives: Optional[list[str]] = None,
              **extra: Any) -> ToolMessage:
    raise NotImplementedError("Exercise 5, step 3: the error the model can act on")


class ToolErrorExecutor(Executor):
    def __init__(self, episode: Episode, max_attempts: int = 3):
        raise NotImplementedError("Exercise 5, step 4: the executor")

    def offered(self, episode: Episode) -> list[ToolSpec]:
        raise NotImplementedError

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        raise NotImplementedError("Exercise 5, step 4: run the call, retrying what can heal; never raise")

    def after_step(self, episode: Episode) -> Optional[Stop]:
        raise NotImplementedError


def make_executor(episode: Episode) -> ToolErrorExecutor:
    return ToolErrorExecutor(episode)
