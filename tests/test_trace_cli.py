"""Lesson 6 from the shell: `run --trace`, `demo --traces`, `trace`, `report`, `replay`; and a run made through
the official SDKs is traced and replays like any other."""
from __future__ import annotations

import json

import pytest
import yaml

from reference.cli import main
from reference.diagnosis.replay import regression_case, replay
from reference.harness.episode import Episode
from reference.harness.trace import Trace, load
from reference.runs.registry import run_loop
from reference.runs.runner import evaluate
from reference.sim.scenario.loading import catalogue, find, parse_scenario


def cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_run_writes_a_trace_that_trace_reads_as_a_timeline(tmp_path, capsys):
    path = tmp_path / "mt.jsonl"
    code, out = cli(capsys, "run", "metric-trend", "--trace", str(path))
    assert code == 0 and f"trace: {path}" in out
    code, out = cli(capsys, "trace", str(path))
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:2] == ["step", "tool"]
    assert sum("= step" in line for line in lines) == 4  # two tools, each back twice
    assert "stop: max_steps" in out and "shape: cycle, detectable at step 5" in out


def test_demo_writes_one_trace_per_scenario_and_loop_and_the_same_rows(tmp_path, capsys):
    code, out = cli(capsys, "demo", "--json", "--loop", "react", "--traces", str(tmp_path))
    rows = json.loads(out)
    files = sorted(p.name for p in tmp_path.glob("*.jsonl"))
    assert code == 0 and files == sorted(f"{r['scenario']}.react.jsonl" for r in rows)
    one = load(tmp_path / "happy-path.react.jsonl")
    assert one[0]["kind"] == "run" and one[-1]["kind"] == "finish"


def test_report_over_a_folder_of_traces_and_over_a_seeded_fleet(tmp_path, capsys):
    cli(capsys, "demo", "--json", "--loop", "react", "--traces", str(tmp_path))
    code, out = cli(capsys, "report", str(tmp_path), "--json")
    data = json.loads(out)
    assert code == 0 and data["metrics"]["runs"] == len(catalogue())
    assert {a["alert"] for a in data["alerts"]} == {"max_steps trigger rate", "P99 steps", "P99 cost per user request",
                                                 "costliest user request"}
    code, out = cli(capsys, "report", "--fleet", "fleet-lookup", "--runs", "20")
    assert code == 0 and "stop reasons:" in out and "P99 steps" in out and out.count("fleet-lookup") == 20


def test_replay_writes_a_regression_case_the_naive_loop_fails_and_the_guarded_passes(tmp_path, capsys):
    trace, case = tmp_path / "t.jsonl", tmp_path / "case.yaml"
    cli(capsys, "run", "metric-trend", "--trace", str(trace))
    code, out = cli(capsys, "replay", str(trace), "-o", str(case), "--regression")
    assert code == 0 and case.exists()
    scenario = parse_scenario(yaml.safe_load(case.read_text()), str(case))
    naive = [c for c in evaluate(scenario, run_loop("react", Episode.from_scenario(scenario))) if not c.ok]
    guarded = [c for c in evaluate(scenario, run_loop("guarded", Episode.from_scenario(scenario))) if not c.ok]
    assert naive and not guarded, (naive, guarded)



@pytest.mark.parametrize("scenario", catalogue(), ids=[s.name for s in catalogue()])
def test_every_naive_run_to_the_step_limit_becomes_a_case_the_guarded_loop_passes(scenario):
    episode = Episode.from_scenario(scenario)
    first = run_loop("react", episode)
    case = parse_scenario(regression_case(episode.trace), "case.yaml")
    naive_ok = all(c.ok for c in evaluate(case, run_loop("react", Episode.from_scenario(case))))
    if first.stop_reason.value == "max_steps" and "max_steps" not in scenario.expect.stop_reasons:
        guarded_ok = all(c.ok for c in evaluate(case, run_loop("guarded", Episode.from_scenario(case))))
        assert not naive_ok and guarded_ok  # where a good loop stops before the limit, the case shows the fix
    elif first.stop_reason.value == "max_steps":  # the limit is a fair end here too: the case pins the bad run
        assert not naive_ok
    else:  # a run that ended well is pinned as it is
        assert naive_ok


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
def test_a_run_through_the_official_sdk_is_traced_and_replays(wire):
    from reference.providers.adapters import sdk_episode

    episode, server = sdk_episode(find("metric-trend"), wire, trace=Trace())
    first = run_loop("react", episode)
    records = episode.trace.records
    assert records[0]["wire"] == wire and len(server.exchanges) == first.model_calls
    assert [r["step"] for r in records if r["kind"] == "step"] == list(range(1, first.model_calls + 1))
    again = parse_scenario(yaml.safe_load(replay(episode.trace)), "replay.yaml")
    second = run_loop("react", Episode.from_scenario(again))
    assert (second.stop_reason, second.model_calls, second.tool_calls) == (first.stop_reason, first.model_calls,
                                                                            first.tool_calls)
    assert second.usage == first.usage  # the same wire, the same requests, the same tokens
