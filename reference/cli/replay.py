"""`loopkit replay TRACE -o case.yaml`: a traced run becomes a scenario that plays it again; with
`--regression`, a regression case that the recorded loop fails and a fixed loop passes."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..diagnosis.replay import replay


def cmd_replay(args: argparse.Namespace) -> int:
    text = replay(args.trace, args.name, regression=args.regression)
    if args.output in (None, "-"):
        print(text, end="")
        return 0
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"wrote {args.output}: run it with `loopkit run {args.output} --loop guarded`")
    return 0
