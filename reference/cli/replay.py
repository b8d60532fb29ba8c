"""`loopkit replay LOG -o case.yaml`: a recorded run becomes a scenario that plays it again. A kit trace
keeps everything the run depended on (with `--regression`, a case the recorded loop fails and a fixed loop
passes); any other log diagnose reads gives its conversation N (`--conversation N`), told apart by content."""
from __future__ import annotations

import argparse
import sys
from itertools import islice
from pathlib import Path

from ..diagnosis.logs import NotALog, read_log
from ..diagnosis.replay import replay
from ..diagnosis.replay_log import replay_log


def cmd_replay(args: argparse.Namespace) -> int:
    n = args.conversation or 0
    try:
        found = next(islice(read_log(args.trace, lambda line: print(line, file=sys.stderr)), n, None), None)
    except NotALog as exc:
        print(f"loopkit replay: {exc}", file=sys.stderr)
        return 2
    if found is None:
        print(f"loopkit replay: {args.trace} has no conversation {n} (they are numbered from 0)", file=sys.stderr)
        return 2
    if found.format == "kit-trace" and n == 0:
        text = replay(args.trace, args.name, regression=args.regression)
    else:
        if args.regression:
            print("loopkit replay: --regression needs a kit trace; writing the plain replay", file=sys.stderr)
        text = replay_log(found, args.name)
    if args.output in (None, "-"):
        print(text, end="")
        return 0
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"wrote {args.output}: run it with `loopkit run {args.output} --loop guarded`")
    return 0
