"""How long a 5 MB scenario file takes to load (read, YAML, validation), on this machine.

    python benchmarks/load_big_scenario.py

Two files are generated in a scratch directory (nothing big is committed): `structured`, 5 MB of small
mappings in a tool result (the worst case: about 500,000 YAML values), and `text`, 5 MB of one block of
text. Each is loaded five times, bypassing the cache; the best time is reported, as wall time and as
CPU time of this process (the CPU figure holds on a busy machine). docs/scenarios.md quotes the result.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from reference.sim.scenario.loading import _load_cached

FIVE_MB = 5 * 1024 * 1024
HEAD = """name: big
title: A five-megabyte scenario
user: "Where is my order A1234?"
"""
TAIL = """      - result: {data: {status: in transit}}
model:
  script:
    - call: {tool: get_order_status, args: {order_id: A1234}}
    - answer: "In transit."
expect:
  completable: true
  stop_reason: completed
"""
TOOL = "tools:\n  - name: get_order_status\n    rules:\n"


def structured() -> str:
    items, size, i = [], 0, 0
    while size < FIVE_MB:
        line = f"              - {{id: {i}, sku: SKU-{i:08d}, qty: {i % 7}, note: \"filler for the benchmark\"}}\n"
        items.append(line)
        size += len(line)
        i += 1
    return (HEAD + TOOL + "      - when: {never: matches}\n        result:\n          data:\n            items:\n"
            + "".join(items) + TAIL)


def text() -> str:
    lines = "".join(f"  line {i:07d} of a long but harmless description, written to reach five megabytes.\n"
                    for i in range(FIVE_MB // 86))
    return HEAD + "description: |\n" + lines + TOOL + TAIL


def measure(path: Path, runs: int = 5) -> tuple[float, float]:
    best_wall = best_cpu = float("inf")
    for run in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        _load_cached(str(path), run)  # a new stamp each time: never served from the cache
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        for name, build in (("structured", structured), ("text", text)):
            path = Path(scratch) / f"{name}.yaml"
            path.write_text(build(), encoding="utf-8")
            wall, cpu = measure(path)
            print(f"{name:<10}  {path.stat().st_size / 1e6:.1f} MB  best of 5: {wall:.2f} s wall, {cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
