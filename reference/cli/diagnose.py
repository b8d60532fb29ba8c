"""`loopkit diagnose LOG...`: real agent logs in, loops out (docs/diagnose.md).

    loopkit diagnose logs/                       a row per conversation, then the fleet
    loopkit diagnose logs/ --json > verdicts.jsonl   one JSON object per conversation (shards concatenate)
    loopkit diagnose logs/ --html report.html    the fleet and a timeline per flagged conversation
    loopkit diagnose logs/ --jobs 2              files spread over two worker processes

Bad entries are reported on stderr, one line each; the rest is still read. Exit code 0, or 2 when no file
could be read at all.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

from ..diagnosis.batch import judge_files, log_files
from ..diagnosis.diagnose_html import page
from ..diagnosis.fleetlog import FleetSummary, fleet_lines
from .table import format_table

COLUMNS = [("conversation", "conversation"), ("id", "id"), ("format", "format"), ("calls", "calls"),
           ("flagged", "flagged"), ("first_flag", "first flag at"), ("shape", "shape"),
           ("calls_after_flag", "calls after"), ("tokens_after_flag", "tokens after")]


def add_parser(sub: Any) -> None:
    d = sub.add_parser("diagnose", help="judge real agent logs with the guard in shadow mode: a row per "
                       "conversation, then the fleet")
    d.add_argument("logs", nargs="+", help="log files or folders of them (.json, .jsonl, .ndjson, .traj)")
    d.add_argument("--json", action="store_true", help="JSON Lines on stdout, one object per conversation")
    d.add_argument("--html", metavar="FILE", help="also write a page with the fleet and a timeline per flagged one")
    d.add_argument("--jobs", type=int, default=1, help="worker processes, files spread over them (default 1)")
    d.add_argument("--rows", type=int, default=100, help="conversation rows to print (default 100; 0: none)")
    d.set_defaults(func=cmd_diagnose)


def row_cells(row: dict[str, Any]) -> dict[str, Any]:
    return {"conversation": f"{Path(row['source']).name}#{row['conversation']}", "id": row.get("id"),
            "format": row["format"], "calls": len(row["calls"]),
            "flagged": sum(1 for c in row["calls"] if c["verdict"] != "run"), "first_flag": row["first_flag"],
            "shape": row["shape"], "calls_after_flag": row["calls_after_flag"],
            "tokens_after_flag": row["tokens_after_flag"]}


def _rows(shards: list[str]) -> Iterator[dict[str, Any]]:
    for shard in shards:
        with open(shard, encoding="utf-8") as f:
            for line in f:
                yield json.loads(line)


def cmd_diagnose(args: argparse.Namespace) -> int:
    files = log_files(args.logs)
    fleet, shards, read = FleetSummary(), [], 0
    with tempfile.TemporaryDirectory(prefix="loopkit-diagnose-") as tmp:
        for result in judge_files(files, max(1, args.jobs), tmp):
            for line in result.problems:
                print(line, file=sys.stderr)
            if result.unreadable:
                print(f"loopkit diagnose: {result.unreadable}", file=sys.stderr)
                continue
            read += 1
            fleet.merge(result.summary)
            shards.append(result.shard)  # in the temporary folder, gone at the end
            if args.json:  # in file order, as each file is done: memory holds one line at a time
                with open(result.shard, encoding="utf-8") as f:
                    for line in f:
                        sys.stdout.write(line)
        if not read:
            print("loopkit diagnose: no log could be read", file=sys.stderr)
            return 2
        summary = fleet.to_dict()
        if args.html:
            Path(args.html).write_text(page(summary, _rows(shards)), encoding="utf-8")
        if args.json:
            return 0
        shown = []
        for row in _rows(shards):
            if len(shown) == args.rows:
                break
            shown.append(row_cells(row))
        if shown:
            print(format_table(shown, COLUMNS))
            if summary["conversations"] > len(shown):
                print(f"... {summary['conversations'] - len(shown):,} more (--rows N, or --json for all)")
            print()
        print("\n".join(fleet_lines(summary)))
        if args.html:
            print(f"wrote {args.html}")
    return 0
