"""Exercise 5: tool errors. Retry what can heal, translate the rest, break the circuit, never raise.

The task
    Write the executor of the guarded loop (reference/loops/guarded.py, protocol `Executor`): the part
    that decides how one tool call runs. The tests plug it in like this:

        executor = make_executor(episode)
        result = guarded_loop(episode, max_steps, Parts(executor=executor))

    and play the lesson-5 scenarios: a flaky tool (`flaky-timeout`), a 429 with Retry-After
    (`rate-limited`), a bad date (`bad-date-format`), HTTP 200 with `success: false`
    (`business-failure`), a stack trace full of secrets (`exception-secret`), a dead tool
    (`tool-down`), and malformed calls (`malformed-calls`, `schema-mismatch`).

    What you have: `episode.tools.invoke(name, args, call_id)` runs a tool once and returns a
    `ToolOutcome` (`ok`, `data`, `http_status`, `retry_after`, `message`) or RAISES (ToolTimeout, which
    is a TimeoutError; ConnectionResetError; RuntimeError...). Every attempt is recorded in the ledger.
    `episode.clock.sleep(seconds)` waits on the simulated clock (never `time.sleep`).
    `episode.tools.specs` are the tools with their JSON Schemas; `episode.scenario.tools` have
    `alternatives` (other tools that can do the job).
    `reference.parts.executor.redaction.safe_text(text)` returns the text if it holds nothing internal
    (stack trace, path, SQL, host, secret), else None.

What the tests expect (tests/test_ex05_tool_errors.py)
    - the lesson-5 scenarios above meet their `expect` blocks, and `execute` never raises, whatever
      the tool does;
    - failures are told apart: timeouts, connection errors, HTTP 429 and 5xx can heal and are retried
      in code, unseen by the model when a retry succeeds; invalid arguments (400/422), auth (401/403),
      not found, other 4xx, a bug (any other exception) and HTTP 200 with `success: false` are not
      retried (`classify` returns None only for a real success);
    - retries wait on the simulated clock: Retry-After when given, else an exponential backoff with
      jitter (`backoff_seconds`); at most `max_attempts`, and no wait that would overrun the run's time
      limit;
    - the model reads a structured error result it can act on (`translate`): its kind, whether it is
      retryable and what to do next; a malformed call (unknown or withdrawn tool, arguments that are not
      JSON or break the tool's schema) is answered with which argument, what was expected and an
      example, and the tool does not run;
    - nothing internal (stack trace, path, SQL, host, secret) ever reaches the model, on any error path;
    - after `failure_threshold` failed calls in a row that were the tool's fault, the tool is withdrawn
      (`offered()` stops listing it, the model is told); when every tool is withdrawn, `after_step`
      stops the run with CIRCUIT_OPEN; the same rejected call `max_same_rejections` times stops it with
      REPEATED_CALL;
    - and tests/test_red_flags.py checks that the classic wrong answers in tests/red_flags/ fail them.

Check your work with `loopkit check ex05`; ask for a hint with `loopkit hint ex05`.
"""
from __future__ import annotations

import json  # noqa: F401  (you will need it)
import random
from dataclasses import dataclass
from typing import Any, Optional

from reference import Episode, StopReason, ToolCall, ToolMessage, ToolOutcome, ToolSpec  # noqa: F401
from reference.loops.hooks import Executor, Stop  # the executor's protocol; why a run stops
from reference.core.lazy import load_jsonschema  # noqa: F401  (jsonschema, imported on first use)
from reference.parts.executor.redaction import safe_text  # noqa: F401


@dataclass(frozen=True)
class Failure:
    error_type: str  # timeout, connection_error, rate_limited, unavailable, internal_error, invalid_argument, ...
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
    def __init__(self, episode: Episode, max_attempts: int = 3, failure_threshold: int = 2,
                 max_same_rejections: int = 3):
        raise NotImplementedError("Exercise 5, steps 4-7: the executor")

    def offered(self, episode: Episode) -> list[ToolSpec]:
        raise NotImplementedError

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        raise NotImplementedError

    def after_step(self, episode: Episode) -> Optional[Stop]:
        raise NotImplementedError


def make_executor(episode: Episode) -> ToolErrorExecutor:
    return ToolErrorExecutor(episode)
