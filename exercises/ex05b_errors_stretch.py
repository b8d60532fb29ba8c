"""Exercise 5 (stretch): malformed calls, circuit breakers, the same rejected call.

Do the core first (exercises/ex05_tool_errors.py, `loopkit check ex05`).

The task
    The core's executor retries what can heal and translates the rest. Two loops remain. A model that
    sends a malformed call (a tool that does not exist, arguments that are not JSON or break the
    tool's schema) and is told only "invalid" sends it again; a tool that is down keeps being called.
    Extend the executor: the tests plug it in as the core's

        result = guarded_loop(episode, max_steps, Parts(executor=make_executor(episode)))

    and play `bad-date-format`, `malformed-calls`, `schema-mismatch` and `tool-down`, plus tools built
    in the tests.

What you are given
    The core's answers, imported below from reference/parts/executor/given_core.py, so this exercise
    does not depend on your core: `Failure`, `classify`, `backoff_seconds`, `translate(call, failure,
    attempts, alternatives, **extra)` (extra keys go into the body the model reads), and
    `RetryingExecutor`, whose `__init__` sets `max_attempts`, `max_seconds`, `rng` and `alternatives`
    and whose `run_with_retries(episode, call, args)` returns `(outcome, failure, attempts)`.
    `episode.tools.specs` are the tools with their JSON Schemas, `episode.tools.names` their names;
    `load_jsonschema()` imports jsonschema.

What the tests check (tests/test_ex05b_errors_stretch.py)
    - a malformed call is answered without running the tool, with which argument, what was expected
      and an example value for that one argument, of its own kind (a date for a date, today's on the
      scenario's clock); an unknown or withdrawn tool is answered with
      the tools there are; each call is checked against its own tool's schema; `execute` never raises,
      even when validation itself breaks;
    - after `failure_threshold` failed calls in a row that were the tool's fault (it could not be
      healed by retries, or it broke), the tool is withdrawn: `offered()` stops listing it and the model
      is told, with the other tools that can do the job; an answer from the tool (data or a refusal of
      the arguments) starts the count again; the caller's mistakes never open the circuit;
    - when every tool is withdrawn, `after_step` stops the run with CIRCUIT_OPEN; the same rejected call
      (the same tool and arguments, whitespace aside; rejected: refused before it ran, or answered by
      the tool with an error no retry heals) `max_same_rejections` times stops it with REPEATED_CALL,
      and two calls in one turn with different arguments are different calls;
    - two runs in one process share nothing.

Check your work with `loopkit check ex05b`; ask for a hint with `loopkit hint ex05b`.
"""
from __future__ import annotations

from typing import Any, Optional  # noqa: F401

from reference import Episode, StopReason, ToolCall, ToolMessage, ToolSpec  # noqa: F401
from reference.loops.hooks import Stop  # noqa: F401
from reference.core.lazy import load_jsonschema  # noqa: F401  (jsonschema, imported on first use)
from reference.parts.executor.given_core import Failure, RetryingExecutor, translate  # noqa: F401  (the core's answers)


class ToolErrorExecutor(RetryingExecutor):
    def __init__(self, episode: Episode, max_attempts: int = 3, failure_threshold: int = 2,
                 max_same_rejections: int = 3):
        raise NotImplementedError("Exercise 5 stretch: the executor's state (call super().__init__ first)")

    def offered(self, episode: Episode) -> list[ToolSpec]:
        raise NotImplementedError("Exercise 5 stretch: every tool not withdrawn")

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        raise NotImplementedError("Exercise 5 stretch: check the call, run it, count what failed; never raise")

    def after_step(self, episode: Episode) -> Optional[Stop]:
        raise NotImplementedError("Exercise 5 stretch: circuit open, or the same rejected call too often")


def make_executor(episode: Episode) -> ToolErrorExecutor:
    return ToolErrorExecutor(episode)
