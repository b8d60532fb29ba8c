"""The Dask extra: the per-file judge mapped over shards on a local cluster gives the fleet that
`loopkit diagnose` gives on one machine (reference/diagnosis/dask_fleet.py)."""
from __future__ import annotations

import json

import pytest

from reference.diagnosis import samples
from reference.diagnosis.batch import judge_files
from reference.diagnosis.fleetlog import FleetSummary
from reference.diagnosis.logs import write


@pytest.mark.slow
def test_a_local_cluster_gives_the_same_fleet(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    from reference.diagnosis.dask_fleet import diagnose_fleet
    logs = tmp_path / "logs"
    logs.mkdir()
    paths = []
    for k, (name, turns) in enumerate(samples.fleet(40, seed=3)):
        path = logs / f"shard-{k % 4}.jsonl"
        with open(path, "a") as f:
            f.write(json.dumps({"id": f"{name}-{k}", "messages": write.chat(turns)}) + "\n")
    paths = sorted(str(p) for p in logs.iterdir())
    (logs / "broken.json").write_text("not a log")
    paths.append(str(logs / "broken.json"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        result = diagnose_fleet(paths, str(tmp_path / "verdicts"))
    local = FleetSummary()
    for r in judge_files(paths[:-1], shard_dir=str(tmp_path)):
        local.merge(r.summary)
    assert result["fleet"] == local.to_dict() and result["fleet"]["conversations"] == 40
    assert len(result["problems"]) == 1 and "expected" in result["problems"][0]
    shards = sorted((tmp_path / "verdicts").iterdir())
    assert len(shards) == 4 and sum(len(p.read_text().splitlines()) for p in shards) == 40
