"""How long `loopkit demo` takes in a fresh process (wall time, several runs).

    python benchmarks/demo_speed.py [runs]

Figures and how they were measured: docs/benchmarks.md. Not a test: wall time depends on the machine.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(runs: int = 5) -> None:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "reference.cli", "demo"], cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    print(f"loopkit demo, fresh process, {runs} runs: median {statistics.median(times):.2f} s, "
          f"min {min(times):.2f} s, max {max(times):.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
