"""Lesson 6: a trace becomes a regression scenario that plays the same run again."""
from __future__ import annotations

import pytest
import yaml

from reference.core.result import StopReason
from reference.diagnosis.replay import regression_case, replay, replay_scenario
from reference.harness.episode import Episode
from reference.harness.trace import Trace
from reference.runs.registry import run_loop
from reference.runs.runner import evaluate
from reference.sim.scenario.loading import catalogue, find, parse_scenario

SCENARIOS = catalogue()


def _trajectory(result):
    return result.stop_reason, result.model_calls, [c["name"] for s in result.steps for c in s.tool_calls]


def _replayed(scenario, loop, capture=False):
    episode = Episode.from_scenario(scenario, trace=Trace(capture_content=capture))
    first = run_loop(loop, episode)
    again = parse_scenario(yaml.safe_load(replay(episode.trace)), "replay.yaml")
    return first, again, run_loop(loop, Episode.from_scenario(again))


# Each scenario through the guarded loop stays in the default suite (the same trace, replay and comparison for every
# scenario, provider faults included); through the bare loop, which repeats that machinery on longer runs, `slow`.
@pytest.mark.parametrize("loop", [pytest.param("react", marks=pytest.mark.slow), "guarded"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_run_trace_replay_run_gives_the_same_trajectory(scenario, loop):
    if loop == "react" and scenario.provider_faults:
        pytest.skip("the naive loop crashes on a provider failure: no finished run to replay")
    first, again, second = _replayed(scenario, loop)
    assert _trajectory(second) == _trajectory(first)
    failed = [c.detail for c in evaluate(again, second) if not c.ok]
    assert not failed, failed  # the expect block pins the recorded run


# The whole catalogue through both loops costs ~11 s of CPU: the guarded loop's pass stays in the default suite (it
# meets every scenario, provider faults included); the bare loop's is `slow`, run once in CI.
@pytest.mark.parametrize("loop", [pytest.param("react", marks=pytest.mark.slow), "guarded"])
def test_with_content_capture_even_the_bill_is_the_same(loop):
    for scenario in [s for s in SCENARIOS if loop != "react" or not s.provider_faults]:
        first, _, second = _replayed(scenario, loop, capture=True)
        assert (second.summary() | {"scenario": None}) == (first.summary() | {"scenario": None}), scenario.name


def test_the_replay_keeps_ids_faults_and_what_the_run_depended_on():
    episode = Episode.from_scenario(next(s for s in SCENARIOS if s.name == "rate-limited"), seed=7)
    run_loop("guarded", episode)
    data = replay_scenario(episode.trace)
    ids = [c["id"] for s in data["model"]["script"] if "calls" in s for c in s["calls"]]
    assert ids == [c["id"] for r in episode.trace.records if r["kind"] == "step" for c in r["tool_calls"]]
    results = data["tools"][0]["rules"][0]["results"]
    assert results[0] == {"fault": "rate_limit", "message": results[0]["message"], "retry_after_seconds": 5}
    assert "data" in results[1]
    assert data["limits"] == episode.scenario.limits.model_dump()
    assert data["model"]["wire"] == "openai-chat" and data["intent"] == episode.scenario.intent
    assert data["expect"]["stop_reason"] == "completed" and data["expect"]["must_call"] == ["search_flights"]
    assert "[not captured" in data["user"] and len(data["user"]) == len(episode.scenario.user)


def test_a_trace_without_an_end_cannot_be_pinned():
    episode = Episode.from_scenario(SCENARIOS[0])
    with pytest.raises(ValueError, match="no finish record"):
        replay_scenario(episode.trace)


def _case(name):
    episode = Episode.from_scenario(find(name))
    run_loop("react", episode)
    return parse_scenario(regression_case(episode.trace), "case.yaml")


def _failed(case, loop):
    return {c.name for c in evaluate(case, run_loop(loop, Episode.from_scenario(case))) if not c.ok}


def test_the_regression_case_names_the_fix_not_only_the_fuse():
    loop_case, blowup_case, storm_case = _case("metric-trend"), _case("token-blowup"), _case("tool-down")
    assert {StopReason(r).kind for r in loop_case.expect.stop_reasons} == {"guard", "no_progress"}
    assert {StopReason(r).kind for r in blowup_case.expect.stop_reasons} == {"resource"}
    assert "max_steps" not in storm_case.expect.stop_reasons + blowup_case.expect.stop_reasons
    # the work that answered before the loop showed must still be done
    assert loop_case.expect.must_call == ["get_metric_trend", "record_metric", "render_trend_card"]
    # a failed call sent again unchanged is forbidden; the naive run does it, the guarded one does not
    assert storm_case.expect.must_not_repeat == ["get_exchange_rate"]
    assert "must_not_repeat:get_exchange_rate" in _failed(storm_case, "react")
    assert not _failed(storm_case, "guarded") and not _failed(loop_case, "guarded")
    assert not _failed(blowup_case, "guarded")


def test_a_call_a_careful_loop_refuses_is_not_one_the_fix_must_make():
    case = _case("date-ambiguous")  # the recorded call's 01/12/2026 reads as two dates: the fix refuses it
    assert "check_room" not in case.expect.must_call
    assert not _failed(case, "guarded")
