"""A fleet beyond one machine, on an existing engine: Dask maps the per-file judge over shards (needs the
`dask` extra: `pip install -e ".[dask]"`, which brings dask and dask.distributed).

Judging a conversation is a pure function (shadow.py), so a file is too: `judge_to(path, out_dir)` reads
one log file, writes its verdicts as JSON Lines to `out_dir` (a folder every worker can write: a shared
file system, or a mounted bucket) and returns the file's fleet summary; the summaries merge on the
client. Whatever scheduler is active runs it: a `distributed.Client` connected to a cluster sets itself
as the default.

    from dask.distributed import Client
    from reference.diagnosis.dask_fleet import diagnose_fleet
    client = Client("tcp://scheduler:8786")          # or Client(LocalCluster(n_workers=2)) to try it
    summary = diagnose_fleet(["logs/a.jsonl", ...], "verdicts/")
    # then: loopkit report verdicts/    (the shards, one fleet)
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .fleetlog import FleetSummary
from .logs import NotALog, read_log
from .shadow import judge


def shard_name(path: str) -> str:
    """A shard per input file, unique across folders: the file's stem and a short hash of its path."""
    return f"{Path(path).stem}-{hashlib.sha1(path.encode()).hexdigest()[:8]}.jsonl"


def judge_to(path: str, out_dir: str) -> dict[str, Any]:
    """Judge one log file into `out_dir`; its summary (mergeable: FleetSummary fields) and problem lines."""
    summary = FleetSummary()
    problems: list[str] = []
    target = Path(out_dir) / shard_name(path)
    try:
        with open(target, "w", encoding="utf-8") as out:
            for conversation in read_log(path, problems.append):
                row = judge(conversation).to_json()
                summary.add(row)
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    except NotALog as exc:
        target.unlink(missing_ok=True)
        problems.append(str(exc))
    return {"summary": summary, "problems": problems}


def diagnose_fleet(paths: list[str], out_dir: str) -> dict[str, Any]:
    """Map `judge_to` over the files with the active Dask scheduler; the merged fleet and every problem."""
    import dask.bag as db  # lazy: an optional extra, and only this entry point needs it
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    results = db.from_sequence(paths, npartitions=max(1, len(paths))).map(judge_to, out_dir).compute()
    fleet = FleetSummary()
    problems: list[str] = []
    for r in results:
        fleet.merge(r["summary"])
        problems += r["problems"]
    return {"fleet": fleet.to_dict(), "problems": problems}
