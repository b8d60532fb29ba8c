"""The order pytest-xdist's workers get the test files in: the longest first.

Each worker asks for another file when it is nearly done with its last, so the files handed out last decide how
long one worker waits, idle, for the other. pytest-xdist's own order (most tests first) hands out last the files of
a few long tests (a grade process each, a notebook's kernel); longest first leaves the quick ones for the end.
How long a file takes comes from a past run (file_seconds.json, its tests' wall time under xdist); a file not in
it counts as the median, so a stale table only changes the order, never which tests run.

    LOOPKIT_CPU_LOG=cpu.jsonl python -m pytest --nbval -n auto -p tests.helpers.cpu_time
    python -m tests.helpers.file_order cpu.jsonl > tests/helpers/file_seconds.json
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Protocol

SECONDS = Path(__file__).with_name("file_seconds.json")


class Item(Protocol):
    nodeid: str


def file_of(item: Item) -> str:
    return item.nodeid.split("::", 1)[0]


def longest_first(items: list[Item], seconds: dict[str, float] | None = None) -> None:
    """Sort the items file by file, the longest file first; within a file, and between files of the same length,
    the order stays."""
    import statistics  # here, not at the top: every pytest process loads this module with the conftest

    seconds = json.loads(SECONDS.read_text(encoding="utf-8")) if seconds is None else seconds
    unknown = statistics.median(seconds.values()) if seconds else 0.0
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        first.setdefault(file_of(item), index)
    items.sort(key=lambda item: (-seconds.get(file_of(item), unknown), first[file_of(item)]))


def seconds_per_file(log: str) -> dict[str, float]:
    """A cpu_time log's wall seconds per test file, longest first."""
    files: dict[str, float] = defaultdict(float)
    with open(log, encoding="utf-8") as lines:
        for line in lines:
            test = json.loads(line)
            files[test["test"].split("::", 1)[0]] += test["wall"]
    return {name: round(wall, 1) for name, wall in sorted(files.items(), key=lambda f: -f[1])}


if __name__ == "__main__":
    print(json.dumps(seconds_per_file(sys.argv[1]), indent=0))
