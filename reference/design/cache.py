"""A cache shared by concurrent runs: the race, deterministic on the simulated clock, and its fix.

Two runs of the metric task share one process-wide cache and keep their checklist in it. With a key
that names the item only (`metric_recorded`), the second run reads the first run's tick and skips its
own write: its user's reading is never recorded, and nothing fails. With keys that carry the run
(`run-b:metric_recorded`), or with state kept per run, each run sees only its own record.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..sim.clock import SimClock


@dataclass
class SharedCache:
    store: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        return self.store.get(key)

    def put(self, key: str, value: Any) -> None:
        self.store[key] = value


def race(keys_carry_the_run: bool, clock: SimClock | None = None) -> dict[str, Any]:
    """Runs A and B, interleaved on one clock: A records at 0.2 s, B checks at 0.3 s and records if needed.

    Returns the timeline and which readings reached the (fake) metric store."""
    clock = clock or SimClock.at("2026-11-30T09:00:00+08:00")
    cache, written, timeline = SharedCache(), [], []

    def key(run: str) -> str:
        return f"{run}:metric_recorded" if keys_carry_the_run else "metric_recorded"

    def step(run: str, reading: str) -> None:
        if cache.get(key(run)):
            timeline.append((round(clock.elapsed, 1), run, f"cache says recorded; skips writing {reading}"))
            return
        written.append((run, reading))
        cache.put(key(run), True)
        timeline.append((round(clock.elapsed, 1), run, f"writes {reading}; cache[{key(run)!r}] = True"))

    clock.advance(0.2)
    step("run-a", "150/95")
    clock.advance(0.1)
    step("run-b", "132/84")
    return {"timeline": timeline, "written": written, "lost": [r for r in ("run-a", "run-b")
                                                              if r not in {w[0] for w in written}]}
