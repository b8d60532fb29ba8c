"""Lesson 6: a run step by step (timeline), and many runs together (report, fleet metrics, alerts)."""
from __future__ import annotations

import pytest

from reference.diagnosis.fleet import ALERTS, alerts, fleet_metrics, quantile, report
from reference.diagnosis.timeline import timeline
from reference.harness.episode import Episode
from reference.runs.registry import run_loop
from reference.sim.scenario.loading import find


def _trace(name, loop="react", seed=None):
    episode = Episode.from_scenario(find(name), seed=seed)
    run_loop(loop, episode)
    return episode.trace


def test_timeline_marks_repeats_and_ends_with_stop_and_shape():
    text = timeline(_trace("repeat-exact")).splitlines()
    steps = [l for l in text if l[:4].strip().isdigit()]
    assert len(steps) == 8 and "= step 1" not in steps[0] and all("= step 1" in l for l in steps[1:])
    assert text[-3].startswith("stop: max_steps")
    assert text[-2].startswith("shape: repeat, detectable at step 2")
    assert text[-1].startswith("fix: ")
    guarded = timeline(_trace("repeat-exact", "guarded"))
    assert "[intervene_after_result]" in guarded and "[stop]" in guarded and "(answer, no tools)" in guarded


def test_report_rows_and_fleet_metrics():
    traces = [_trace("fleet-lookup", seed=s) for s in range(1, 41)] + [_trace("repeat-exact"), _trace("tool-down")]
    rows = report(traces)
    assert len(rows) == 42 and {r["shape"] for r in rows} >= {"healthy", "repeat", "error_storm"}
    m = fleet_metrics(traces)
    assert m["runs"] == 42
    assert m["completion_rate"] == sum(r["completed"] for r in rows) / 42
    assert sum(m["stop_reasons"].values()) == 42
    assert set(m["tool_rounds"]) == {"lookup", "general"}
    assert m["tool_rounds"]["general"] == {"p50": 6, "p95": 8, "p99": 8}  # tool-down: 6 rounds, repeat-exact: 8
    assert 0 < m["duplicate_call_rate"] < 1 and 0 < m["tool_error_rate"] < 1 and 0 < m["stale_step_rate"] < 1
    assert m["heat_map"]["get_order_status"] == {step: 1 for step in range(1, 9)}
    assert m["cost_per_completed_task"] > m["p99_cost_per_user_request"] / 10
    fired = {a["alert"] for a in alerts(m) if a["fires"]}
    assert "max_steps trigger rate" in fired
    assert all(a["meaning"] for a in alerts(m)) and len(alerts(m)) == len(ALERTS)


def test_quantile_is_nearest_rank():
    assert quantile([1, 2, 3, 4], 0.5) == 2 and quantile([1, 2, 3, 4], 0.99) == 4 and quantile([], 0.5) == 0.0
    with pytest.raises(ValueError):
        fleet_metrics([])


def test_cost_is_per_user_request_and_one_runaway_pages_without_moving_the_p99():
    traffic = [_trace("fleet-lookup", seed=s) for s in range(1, 201)]
    runaway = _trace("incident-40-step")
    before, after = fleet_metrics(traffic), fleet_metrics(traffic + [runaway])
    rows = report(traffic + [runaway])
    assert after["max_cost_per_user_request"] == max(r["cost_usd"] for r in rows) == rows[-1]["cost_usd"]
    assert before["p99_cost_per_user_request"] > before["p99_cost_per_model_call"]  # a run is many model calls
    assert after["p99_steps"] == before["p99_steps"] < rows[-1]["steps"]  # 1 run in 201 is above the P99's rank
    fired = {a["alert"] for a in alerts(after) if a["fires"]}
    assert fired == {"costliest user request"}  # legitimate traffic alone fires nothing
    assert not any(a["fires"] for a in alerts(before))
