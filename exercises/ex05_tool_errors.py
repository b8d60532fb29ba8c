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
    `alternatives` (other tools that can do the job). `reference.parts.tool_errors.safe_text(text)` returns the
    text if it holds nothing internal (stack trace, path, SQL, host, secret), else None.

Steps
    1. `classify(outcome, exc)`: None for a real success, else a `Failure`. Retryable: timeouts,
       connection errors, HTTP 429 (keep its retry_after) and 5xx. Not retryable: 400/422, 401/403,
       404, other 4xx, any other exception (a bug), and HTTP 200 whose body says `success: false`.
    2. `backoff_seconds(attempt, rng)`: exponential (0.5 s, 1 s, 2 s, ... capped) with jitter drawn
       from `rng`, so that many clients do not retry in step.
    3. `translate(call, failure, ...)`: the JSON tool result the model reads (`ok: false`,
       `error_type`, `retryable`, `message`, `instruction`, ...). Never put an exception's text in it;
       a tool's own message only through `safe_text`. Say what to do next.
    4. `ToolErrorExecutor.execute`, before running: unknown tool, withdrawn tool, arguments that are
       not JSON, arguments that break the tool's JSON Schema (the `jsonschema` package: get it
       with `load_jsonschema()`, which skips its slow optional IRI grammar) -> an actionable error: which argument, what
       was expected (the schema's description), an example. The tool does not run.
    5. Run the call with retries in code: retry only retryable failures, wait `retry_after` when
       given, else the backoff; stop at `max_attempts`, and do not start a wait that would overrun
       `episode.limits.max_seconds`. A retry that succeeds is invisible to the model.
    6. Circuit breaker: after `failure_threshold` failed calls in a row that were the tool's fault
       (retryable ones that ran out of attempts, internal errors), withdraw the tool: `offered()`
       stops listing it and the model is told. When every tool is withdrawn, `after_step` returns
       `(StopReason.CIRCUIT_OPEN, "...")`.
    7. The same rejected call `max_same_rejections` times: `after_step` returns
       `(StopReason.REPEATED_CALL, "...")`.
    And whatever happens, `execute` never raises.

Check your work with `loopkit check ex05`; ask for a hint with `loopkit hint ex05`.
"""
from __future__ import annotations

import json  # noqa: F401  (you will need it)
import random
from dataclasses import dataclass
from typing import Any, Optional

from reference import Episode, StopReason, ToolCall, ToolMessage, ToolOutcome, ToolSpec  # noqa: F401
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


class ToolErrorExecutor:
    def __init__(self, episode: Episode, max_attempts: int = 3, failure_threshold: int = 2,
                 max_same_rejections: int = 3):
        raise NotImplementedError("Exercise 5, steps 4-7: the executor")

    def offered(self, episode: Episode) -> list[ToolSpec]:
        raise NotImplementedError

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        raise NotImplementedError

    def after_step(self, episode: Episode) -> Optional[tuple[StopReason, str]]:
        raise NotImplementedError


def make_executor(episode: Episode) -> ToolErrorExecutor:
    return ToolErrorExecutor(episode)
