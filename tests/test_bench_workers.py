"""The bench's workers: a framework imported once, each run in a fork that leaves nothing to the next one.

No framework is needed: a small driver script runs in the kit's own interpreter, as the kit's rows do.
"""
import json
import os
import sys
from types import SimpleNamespace

import pytest

from reference.bench.run import QUIET_ENV, forked
from reference.bench.workers import Workers, available

pytestmark = pytest.mark.skipif(not available(), reason="the workers fork; this platform has no os.fork")

# Counts its runs in a module's attribute (state a second run in the same process would see), says whether
# `wave` was imported before its own import line ran, and hangs, crashes or kills its worker when asked to.
DRIVER = """
import json, os, signal, sys, time
preloaded = "wave" in sys.modules
import wave
spec = json.load(sys.stdin)
wave.RUNS = getattr(wave, "RUNS", 0) + 1
if spec.get("do") == "hang":
    time.sleep(600)
if spec.get("do") == "raise":
    raise RuntimeError("the driver crashed")
if spec.get("do") == "kill the worker":
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(600)
print("framework chatter on stdout")
print(json.dumps({"answer": f"{spec['n']} runs={wave.RUNS} preloaded={preloaded}", "error": None}))
"""


@pytest.fixture
def driver(tmp_path):
    path = tmp_path / "driver.py"
    path.write_text(DRIVER)
    return SimpleNamespace(name="fake", venv="kit", driver=path)  # venv "kit": this interpreter


@pytest.fixture
def workers():
    with Workers({**os.environ, **QUIET_ENV}) as pool:
        yield pool


def test_runs_in_one_worker_start_from_its_imports_and_share_nothing(driver, workers):
    said = [forked(workers, driver, {"n": n}, timeout=60) for n in range(3)]
    assert [s["answer"] for s in said] == [f"{n} runs=1 preloaded=True" for n in range(3)]
    assert len(workers.started) == 1  # imported once, forked three times
    assert all(s["cpu"] >= 0 and s["seconds"] >= 0 for s in said)


HANG_LIMIT = 0.25  # the hanging driver sleeps 600 s: any limit stops it, however busy the machine is


def test_a_run_that_hangs_is_a_wall_time_stop_and_the_worker_goes_on(driver, workers):
    hung = forked(workers, driver, {"n": 1, "do": "hang"}, timeout=HANG_LIMIT)
    assert hung["answer"] is None and hung["error"] == "wall-time limit (0.25 s)"
    assert forked(workers, driver, {"n": 2}, timeout=60)["answer"] == "2 runs=1 preloaded=True"
    assert len(workers.started) == 1


def test_a_driver_that_crashes_is_reported_with_its_traceback(driver, workers):
    crashed = forked(workers, driver, {"n": 1, "do": "raise"}, timeout=60)
    assert crashed["answer"] is None
    assert crashed["error"].startswith("driver exit 1:") and "the driver crashed" in crashed["error"]
    assert forked(workers, driver, {"n": 2}, timeout=60)["answer"] == "2 runs=1 preloaded=True"


def test_a_worker_that_dies_is_recorded_and_replaced(driver, workers):
    died = forked(workers, driver, {"n": 1, "do": "kill the worker"}, timeout=60)
    assert died["answer"] is None and died["error"].startswith("WorkerDied: worker gone")
    assert forked(workers, driver, {"n": 2}, timeout=60)["answer"] == "2 runs=1 preloaded=True"
    assert len(workers.started) == 2 and not workers.started[0].alive()


def test_closing_the_pool_ends_every_worker(driver):
    with Workers({**os.environ, **QUIET_ENV}) as pool:
        forked(pool, driver, {"n": 1}, timeout=60)
        started = list(pool.started)
    assert started and not any(w.alive() for w in started)


def test_rerun_guard_drops_only_the_rows_the_guard_decides(tmp_path):
    from reference.bench.frameworks import GUARD_ROWS
    from reference.cli.bench import drop_rows, rerun_rows

    assert set(GUARD_ROWS) == {"kit-guarded", "openai-agents+kit-guard", "pydantic-ai+kit-guard",
                               "langgraph+kit-guard", "smolagents+kit-guard", "crewai+kit-guard"}
    results = tmp_path / "bench.jsonl"
    rows = ["kit-react", "kit-guarded", "langgraph", "langgraph+kit-guard"]
    results.write_text("".join(json.dumps({"framework": r, "scenario": "happy-path"}) + "\n" for r in rows))
    assert drop_rows(str(results), rerun_rows(["guard"])) == 2
    assert [json.loads(line)["framework"] for line in results.read_text().splitlines()] == ["kit-react", "langgraph"]
    assert rerun_rows(["langgraph", "guard"]) == {"langgraph", *GUARD_ROWS}


def test_a_rerun_whose_venv_cannot_be_made_keeps_every_run(tmp_path, monkeypatch):
    import argparse
    from dataclasses import asdict

    import reference.cli.bench as bench
    from reference.bench.run import Outcome

    def no_index(framework, log=print):
        raise RuntimeError("no package index")  # as pip fails on a machine with no network

    results = tmp_path / "bench.jsonl"
    fields = {name: 0 for name in Outcome.__dataclass_fields__}
    rows = [asdict(Outcome(**{**fields, "framework": r, "scenario": "happy-path", "stop": "completed"}))
            for r in ("kit-react", "langgraph+kit-guard")]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = results.read_text()
    monkeypatch.setattr(bench, "ensure_venv", no_index)
    args = argparse.Namespace(frameworks=["kit-react", "langgraph+kit-guard"], scenarios=["happy-path"],
                              rerun=["guard"], results=str(results), timeout=60, max_requests=None, jobs=1,
                              fresh=True, plot="", write="")
    with pytest.raises(RuntimeError, match="no package index"):
        bench.cmd_bench(args)
    assert results.read_text() == before


def test_the_fork_server_imports_nothing_but_the_standard_library():
    import ast
    from reference.bench.workers import FORKSERVER

    tree = ast.parse(FORKSERVER.read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert names <= set(sys.stdlib_module_names), names - set(sys.stdlib_module_names)


def test_the_page_says_which_commit_each_row_ran_and_old_results_still_read(tmp_path):
    from reference.bench.report import measured_at
    from reference.bench.run import Outcome
    from reference.cli.bench import read_results

    old = {"framework": "kit-react", "scenario": "happy-path", "model_calls": 2, "stop": "answered", "done": True,
           "input_tokens": 800, "output_tokens": 99, "cost": 0.003, "tool_calls": 2}  # written before cpu and commit
    results = tmp_path / "bench.jsonl"
    results.write_text(json.dumps(old) + "\n")
    kept = read_results(str(results))[("kit-react", "happy-path")]
    assert (kept.cpu, kept.commit) == (None, "")
    row = dict(old, framework="kit-guarded")
    assert measured_at([Outcome(**dict(row, commit="abc"))]) == "every run at the kit's commit abc."
    assert measured_at([Outcome(**dict(row, commit="abc")), Outcome(**dict(row, framework="langgraph+kit-guard",
                                                                            commit="def+"))]) == \
        "the kit's commit by row: abc: kit-guarded; def+: langgraph+kit-guard."
