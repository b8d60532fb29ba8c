"""Many log files over worker processes: each worker reads one file a conversation at a time, judges each
(shadow.py's pure `judge`), writes the verdicts as JSON Lines to a shard of its own and hands back the
file's fleet summary. Memory per worker is one conversation; the shards concatenate, in file order, into
the `--json` output, and the summaries merge into the fleet (fleetlog.py).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Optional

from .fleetlog import FleetSummary
from .logs import NotALog, read_log
from .shadow import judge

LOG_SUFFIXES = (".json", ".jsonl", ".ndjson", ".traj")  # .traj: SWE-agent's trajectories (JSON)


@dataclass
class FileResult:
    source: str
    shard: Optional[str]  # the file of its JSON Lines verdicts (the caller removes it)
    summary: FleetSummary
    problems: list[str] = field(default_factory=list)
    unreadable: Optional[str] = None  # the one line saying why the file is no log


def log_files(paths: Iterable[str]) -> list[str]:
    """The files named, and the log files (LOG_SUFFIXES) under the folders named, in order."""
    out: list[str] = []
    for p in map(Path, paths):
        out += sorted(str(f) for f in p.rglob("*") if f.suffix in LOG_SUFFIXES and f.is_file()) if p.is_dir() else [str(p)]
    return out


def judge_file(path: str, shard_dir: Optional[str] = None) -> FileResult:
    summary = FleetSummary()
    problems: list[str] = []
    fd, shard = tempfile.mkstemp(prefix="diagnose-", suffix=".jsonl", dir=shard_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for conversation in read_log(path, problems.append):
                row = judge(conversation).to_json()
                summary.add(row)
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    except NotALog as exc:
        os.unlink(shard)
        return FileResult(path, None, summary, problems, unreadable=str(exc))
    except OSError as exc:
        os.unlink(shard)
        return FileResult(path, None, summary, problems, unreadable=f"{path}: cannot read it: {exc.strerror or exc}")
    return FileResult(path, shard, summary, problems)


def judge_files(paths: list[str], jobs: int = 1, shard_dir: Optional[str] = None) -> Iterator[FileResult]:
    """Each file's result, in the order given; with `jobs` > 1 the files are spread over that many processes."""
    if jobs <= 1 or len(paths) <= 1:
        for p in paths:
            yield judge_file(p, shard_dir)
        return
    # spawn: a worker needs nothing of this process but the function's name, and a fork of a process that has
    # threads (a notebook's kernel, a pytest worker) can deadlock in the child
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield from pool.map(judge_file, paths, [shard_dir] * len(paths))
