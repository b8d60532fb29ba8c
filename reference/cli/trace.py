"""`loopkit trace FILE`: a run's JSONL trace as a timeline, one line per step, then its stop and its shape."""
from __future__ import annotations

import argparse

from ..diagnosis.timeline import timeline


def cmd_trace(args: argparse.Namespace) -> int:
    print(timeline(args.file))
    return 0
