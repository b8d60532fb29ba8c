"""Run the guarded loop on every catalogue scenario and print one JSON line per scenario.

    python -m tests.helpers.concurrent_runs sequential | threads | processes   # from the repository's root

Started by tests/test_concurrency.py in a fresh interpreter each time, so that the first runs also
do the first imports (jsonschema's among them) at the same moment in 8 threads or 8 processes.
"""
from __future__ import annotations

import json
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from reference.runs.runner import run
from reference.sim.scenario.loading import catalogue, find

WORKERS = 8


def outcome(name: str) -> dict:
    result = run(find(name), "guarded")
    return {"scenario": name, "stop_reason": result.stop_reason.value, "model_calls": result.model_calls,
            "input_tokens": result.usage.input_tokens, "output_tokens": result.usage.output_tokens,
            "answer": result.answer}


def main(how: str) -> None:
    names = [s.name for s in catalogue()]
    if how == "sequential":
        rows = [outcome(name) for name in names]
    elif how == "threads":
        with ThreadPoolExecutor(WORKERS) as pool:
            rows = list(pool.map(outcome, names))
    elif how == "processes":  # spawn: every worker is a fresh interpreter, whatever the platform's default
        with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
            rows = list(pool.map(outcome, names))
    else:
        raise SystemExit(f"usage: {sys.argv[0]} sequential|threads|processes")
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
