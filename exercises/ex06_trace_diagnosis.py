"""Exercise 6: diagnose runs from their traces, and turn a bad one into a regression case.

The task
    Every run leaves a JSONL trace (reference/harness/trace.py; docs/tracing.md lists its records).
    Write three functions that read traces. Each takes what `reference.harness.trace.load` takes: a
    path, a `Trace` (`episode.trace`), or a list of records.

        shape(trace) -> str                  "error_storm", "cycle", "repeat" or "healthy" (the loop
                                             shapes of docs/glossary.md)
        fleet(traces) -> dict                runs, stop_reasons, max_steps_rate, p99_steps, duplicate_call_rate
        regression_case(trace) -> dict       a scenario (as YAML holds it) that the naive loop fails
                                             and the guarded loop passes

    Given: `reference.diagnosis.shapes.calls_of(records)` lists every call the model made, in order,
    as `Call(step, call_id, tool, fingerprint, arguments, status, result, empty)`, with the result it
    read back ("-" status: never answered). `reference.diagnosis.fleet.quantile(values, q)` is the
    nearest-rank percentile. `reference.diagnosis.replay.replay_scenario(trace)` writes the scenario
    that plays the run again, with an `expect` block that pins the recorded run.

Steps
    1. `shape`. Walk the calls in order and note the step at which each shape first shows:
         - error_storm: at least two error results, and at least half of the results so far;
         - a call whose fingerprint came before, and nothing new came back (its result is empty, or
           the same as an earlier result of that tool): a `cycle` if other tools' calls came between
           it and the last call with that fingerprint (A-B-A), else a `repeat`. A `volatile` tool
           (the `run` record's tools) may be asked again once with the same answer: a status can
           change while you look; the second stale re-check is a repeat.
       The earliest shape wins; on the same step, error_storm, then cycle, then repeat. None:
       "healthy".
    2. `fleet`. Over many traces: `runs`; `stop_reasons` (stop reason -> runs, from each `finish`
       record); `max_steps_rate` (the share that hit the step limit); `p99_steps` (model requests per
       run, nearest rank); `duplicate_call_rate`: among the calls the model asked for (`step`
       records' `tool_calls`), the share whose fingerprint already came in the same run (0 when
       no call was made).
    3. `regression_case`. Start from `replay_scenario(trace)`. If the recorded run hit the step
       limit, replace its `expect` with what the fix must do, not only the fuse:
         - `completable` false (the replayed model never changes its mind);
         - `stop_reason`: every reason of the kind that ends the run's shape (`StopReason(...).kind`
           in reference/core/result.py): a guard's or no progress for a repeat or a cycle; a guard's,
           a resource's or no progress for an error storm; a resource's (a budget) for a healthy
           shape, a run that simply ran out of room. Never `max_steps`; add `cancelled` when the
           scenario has a `cancel` (the user's stop);
         - `model_calls`: a `max` below the recorded run's;
         - `must_call`: the tools that gave an `ok` result (the work that worked must still be done),
           sorted by name;
         - `must_not_repeat`: the tools whose failed call (status not `ok`) was sent again with the
           same fingerprint and failed again (the same arguments fail the same way), sorted by name.
       Otherwise keep the recorded expectation.

Check your work with `loopkit check ex06`; ask for a hint with `loopkit hint ex06`.
"""
from __future__ import annotations

from typing import Any, Iterable

from reference.core.result import StopReason  # noqa: F401  (you will need them)
from reference.diagnosis.fleet import quantile  # noqa: F401
from reference.diagnosis.replay import replay_scenario  # noqa: F401
from reference.diagnosis.shapes import Call, calls_of  # noqa: F401
from reference.harness.trace import load  # noqa: F401


def shape(trace: Any) -> str:
    raise NotImplementedError("Exercise 6, step 1: the run's shape from its calls")


def fleet(traces: Iterable[Any]) -> dict[str, Any]:
    raise NotImplementedError("Exercise 6, step 2: the fleet's metrics")


def regression_case(trace: Any) -> dict[str, Any]:
    raise NotImplementedError("Exercise 6, step 3: the trace as a regression case")
