"""Exercise 7: fix the design, not the fuse. Run against solutions/ by default; `--target exercises` for yours.

The runs use the guarded loop with only your executor plugged in (no guard, no budget): the design alone
must end the run.
"""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from conftest import load_exercise
from reference import Episode, find, parse_scenario
from reference.core.messages import ToolCall
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.runs.runner import completed


def ex(target):
    return load_exercise(target, "ex07_design")


def designed_run(target, scenario):
    episode = Episode.from_scenario(scenario)
    executor = ex(target).DesignedExecutor(episode)
    return episode, executor, guarded_loop(episode, scenario.limits.max_steps, Parts(executor=executor))


def test_the_router_offers_only_the_intents_tools(target):
    scenario = find("metric-trend")
    episode = Episode.from_scenario(scenario)
    offered = [s.name for s in ex(target).DesignedExecutor(episode).offered(episode)]
    assert sorted(offered) == ["get_metric_trend", "record_metric"], (
        f"scenario `metric-trend` offers {offered} on the first request: the intent (record, then trend) needs "
        f"record_metric and get_metric_trend; render_trend_card is a UI decision made in code, so the candidate "
        f"set should drop from {len(episode.tools.names)} tools to 2")


def test_the_run_completes_in_the_oracles_calls(target):
    scenario = find("metric-trend")
    _, _, result = designed_run(target, scenario)
    assert completed(scenario, result), f"scenario `metric-trend` stopped with {result.stop_reason.value}: {result.detail}"
    assert result.model_calls <= scenario.expect.oracle_model_calls and result.model_calls == 3, (
        f"{result.model_calls} model calls: record, the 14-day trend (the period settled in code), then the answer "
        "with no tool offered, since the checklist is complete")


def test_the_period_is_settled_in_code(target):
    episode, _, _ = designed_run(target, find("metric-trend"))
    trend_calls = episode.tools.tools["get_metric_trend"].calls
    assert trend_calls == 1, (f"get_metric_trend ran {trend_calls} times: the model asks for 30d first, but the user "
                              "said two weeks; code replaces the model's period with 14d, and one fetch is enough")


def test_a_lost_state_update_is_impossible_by_construction(target):
    episode, _, result = designed_run(target, find("lost-update"))
    writes = episode.tools.tools["record_metric"].calls
    assert writes == 1, (f"scenario `lost-update`: record_metric ran {writes} times, so the user has {writes} records "
                         "of one reading. The runtime records each done step itself; a call for a step already "
                         "done is answered from the state and not run again")


def test_only_a_validated_result_ticks_the_checklist(target):
    failing = find("metric-trend").model_dump(exclude={"source"})
    failing["tools"][0]["rules"] = [{"result": {"fault": "business_failure", "message": "Reading out of range."}}]
    scenario = parse_scenario(failing, "failing-record.yaml")
    episode = Episode.from_scenario(scenario)
    executor = ex(target).DesignedExecutor(episode)
    executor.offered(episode)
    executor.execute(episode, ToolCall("call_1", "record_metric", '{"value": "150/95", "date": "today"}'))
    assert executor.state.metric_recorded is False, (
        "record_metric answered HTTP 200 with success: false, and metric_recorded became True. The model's "
        "call is a proposal: only the runtime ticks an item, and only from a result it has validated")


def test_the_state_is_typed_and_refuses_what_it_does_not_know(target):
    state_type = type(ex(target).DesignedExecutor(Episode.from_scenario(find("metric-trend"))).state)
    for bad in ({"period": "14d", "metric_recorded": "yes"}, {"period": "14d", "metric_recorded": True, "done": True},
                {"period": "14d", "schema_version": 99}):
        with pytest.raises((ValidationError, TypeError, ValueError)):
            state_type(**bad)
            raise AssertionError(f"the state accepted {bad}: state as an untyped dict lets a string 'yes', an unknown "
                                 "field or an unknown schema version in; use a pydantic model with extra='forbid', "
                                 "strict types and a schema_version")


@pytest.mark.parametrize("plan, reason", [
    ({"steps": [{"tool": "get_metric_trend"}]}, "record_metric"),
    ({"steps": [{"tool": "record_metric"}, {"tool": "render_trend_card"}, {"tool": "get_metric_trend"}]}, "render_trend_card"),
    ({"steps": [{"tool": "get_metric_trend"}, {"tool": "record_metric"}]}, "after"),
    ('{"steps": [{"tool": "record_metric"}], "done": true}', "steps"),
])
def test_a_malformed_plan_is_refused_with_a_clear_error(target, plan, reason):
    with pytest.raises(ValueError) as refused:
        ex(target).validate_plan(plan)
    assert reason in str(refused.value), f"the plan {plan} was refused, but the error does not name {reason!r}: {refused.value}"


def test_a_valid_plan_is_accepted(target):
    assert ex(target).validate_plan({"steps": [{"tool": "record_metric"}, {"tool": "get_metric_trend"}]}) == [
        "record_metric", "get_metric_trend"]
