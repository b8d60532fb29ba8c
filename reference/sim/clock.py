"""Simulated time. Nothing in the kit sleeps: latency, timeouts and backoff advance this clock."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

DEFAULT_START = "2026-11-30T09:00:00+08:00"


def parse_start(iso: str) -> dt.datetime:
    """An ISO 8601 date-time with its UTC offset; 'Z' is accepted (Python 3.10's fromisoformat does not)."""
    value = dt.datetime.fromisoformat(iso[:-1] + "+00:00" if iso.endswith(("Z", "z")) else iso)
    if value.tzinfo is None:
        raise ValueError(f"{iso!r} has no UTC offset; write it like 2026-11-30T09:00:00+08:00")
    return value


@dataclass
class SimClock:
    start: dt.datetime
    elapsed: float = 0.0  # simulated seconds since the run began

    @classmethod
    def at(cls, iso: str = DEFAULT_START) -> "SimClock":
        return cls(parse_start(iso))

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not run backwards")
        self.elapsed += seconds

    def sleep(self, seconds: float) -> None:
        """What `time.sleep` becomes in the kit: the run's time passes, the test's does not."""
        self.advance(seconds)

    def now(self) -> dt.datetime:
        return self.start + dt.timedelta(seconds=self.elapsed)

    def today(self) -> dt.date:
        return self.now().date()
