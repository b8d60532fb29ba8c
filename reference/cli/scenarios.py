"""`loopkit scenarios`: the catalogue, one line each."""
from __future__ import annotations

import argparse

from ..sim.scenario.loading import catalogue


def cmd_scenarios(args: argparse.Namespace) -> int:
    scenarios = catalogue()
    width = max(len(s.name) for s in scenarios)
    for s in scenarios:
        kind = "completable" if s.expect.completable else "not completable"
        print(f"{s.name.ljust(width)}  {s.title}  [{kind}; expect {' or '.join(s.expect.stop_reasons)}]")
    return 0
