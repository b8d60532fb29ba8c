"""How long `loopkit check exNN` takes in a fresh process, for every exercise, on the solution and the stub.

    python benchmarks/check_speed.py [runs]

Wall time of `python -m reference.cli check exNN [--solutions]`, warm (the runs interleaved, after one
unmeasured pass that compiles the bytecode): min, median and max of `runs` runs each. Figures and how they
were measured: docs/grading.md ("loopkit check"). Not a test: wall time depends on the machine and its load.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reference.lessons import EXERCISES  # noqa: E402  (after the path: run from a clone)


def once(exercise: str, solutions: bool) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "reference.cli", "check", exercise] + (["--solutions"] if solutions else []),
                   cwd=ROOT, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - started


def main(runs: int = 5) -> None:
    cases = [(lesson.exercise, solutions) for lesson in EXERCISES for solutions in (True, False)]
    for case in cases:
        once(*case)  # warm: bytecode compiled, files in the page cache
    times: dict[tuple[str, bool], list[float]] = {case: [] for case in cases}
    for _ in range(runs):
        for case in cases:
            times[case].append(once(*case))
    print(f"loopkit check, fresh process, {runs} runs each (load average {os.getloadavg()[0]:.1f} at the end):")
    for (exercise, solutions), seconds in times.items():
        print(f"  {exercise} {'solution' if solutions else 'stub    '}  min {min(seconds):.2f}  "
              f"median {statistics.median(seconds):.2f}  max {max(seconds):.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
