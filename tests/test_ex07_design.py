"""Exercise 7: fix the design, not the fuse. Run against solutions/ by default; `--target exercises` for yours.

The runs use the guarded loop with only your executor plugged in (no guard, no budget): the design alone
must end the run.
"""
from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from reference import Episode, find, parse_scenario
from reference.core.messages import ToolCall, ToolMessage
from reference.core.toolresult import read_body
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts, PlainExecutor
from reference.runs.runner import completed
from tests.helpers.targets import load_exercise


def ex(target):
    return load_exercise(target, "ex07_design")


def designed_run(target, scenario, module=None):
    episode = Episode.from_scenario(scenario)
    executor = (module or ex(target)).DesignedExecutor(episode)
    return episode, executor, guarded_loop(episode, scenario.limits.max_steps, Parts(executor=executor))


def ran(episode) -> list[tuple[str, dict]]:
    """Every tool run of the episode, in order: (tool, the arguments it ran with)."""
    records = [*episode.ledger.orphan_tools, *(t for step in episode.ledger.steps for t in step.tools)]
    return [(t.name, t.arguments) for t in records]


def first_call(episode) -> ToolCall:
    """The model's first call, as the model makes it."""
    return episode.model.complete(episode.initial_messages(), episode.tools.specs).tool_calls[0]


class Answers(PlainExecutor):
    """An inner executor whose tools all answer `content` (another service's format)."""

    def __init__(self, content: str):
        self.content = content

    def execute(self, episode, call):
        return ToolMessage(call.id, self.content)


def test_the_router_offers_only_the_intents_tools(target):
    scenario = find("metric-trend")
    episode = Episode.from_scenario(scenario)
    offered = [s.name for s in ex(target).DesignedExecutor(episode).offered(episode)]
    assert sorted(offered) == ["get_metric_trend", "record_metric"], (
        f"scenario `metric-trend` offers {offered} on the first request: the intent (record, then trend) needs "
        f"record_metric and get_metric_trend; render_trend_card is a UI decision made in code, so the candidate "
        f"set should drop from {len(episode.tools.names)} tools to 2")


def test_an_unknown_intent_never_gets_every_tool(target):
    tools = ["get_weather", "search_flights", "search_trains", "book_train", "render_trend_card"]
    routed = ex(target).route("What will the weather be in Hangzhou tomorrow?", tools)
    assert "get_weather" in routed and len(routed) <= 2, (
        f"route() offered {routed} of {tools} for a weather question: a router that does not know the intent "
        "must not fall back to every tool; offer at most as many as the intent has, those the request names")
    small = ["record_metric", "get_metric_trend"]  # no more than an intent offers: kept, nothing to cut
    assert ex(target).route("Log my weight, 72.5 kg, and tell me my 7-day average.", small) == small


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


@pytest.mark.parametrize("plan", [{"tools": ["record_metric", "get_metric_trend"]}, {"steps": 2},
                                  {"steps": ["record_metric", "get_metric_trend"]}, {}])
def test_a_plan_of_the_wrong_shape_is_refused_not_crashed_on(target, plan):
    try:
        ex(target).validate_plan(plan)
    except ValueError as refused:
        assert str(refused), f"the plan {plan} was refused with an empty message: name what is wrong"
    except Exception as exc:
        raise AssertionError(f"the plan {plan} crashed validate_plan with {type(exc).__name__}: {exc}. A malformed "
                             "plan is refused with a ValueError naming what is wrong") from exc
    else:
        raise AssertionError(f"the plan {plan} was accepted: a plan is {{'steps': [{{'tool': ...}}, ...]}}")


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


@pytest.mark.parametrize("user, period", [
    ("the last two weeks", "14d"), ("a 7-day average", "7d"), ("over the past 10 days", "10d"),
    ("three days", "3d"), ("one week", "7d"), ("a week", "7d"), ("the last week", "7d"), ("four weeks", "28d"),
    ("three weeks", "21d"), ("a month", "30d"), ("two months", "60d"), ("How is my blood pressure?", None)])
def test_settle_period_reads_the_users_period_in_days(target, user, period):
    got = ex(target).settle_period(user)
    assert got == period, f"settle_period({user!r}) gave {got!r}, expected {period!r} (days; a week is 7, a month 30)"


def test_the_trend_is_fetched_for_the_period_the_user_gave(target):
    episode, _, result = designed_run(target, find("lost-update"))
    periods = [args.get("period") for name, args in ran(episode) if name == "get_metric_trend"]
    assert periods == ["7d"], (f"scenario `lost-update` (\"my 7-day average\"): get_metric_trend ran with periods "
                               f"{periods}. The period is the one settled from the user's words, not a fixed 14d")


def test_the_state_carries_schema_version_1_and_loads_back_from_its_dump(target):
    state = ex(target).DesignedExecutor(Episode.from_scenario(find("metric-trend"))).state
    assert state.schema_version == 1, f"the state's schema_version is {state.schema_version!r}: version 1"
    again = type(state)(**state.model_dump())
    assert again == state, "a state saved with model_dump() must load back as the same state"


def test_the_state_refuses_a_bad_update_as_well_as_a_bad_start(target):
    state = ex(target).DesignedExecutor(Episode.from_scenario(find("metric-trend"))).state
    for field, bad in (("metric_recorded", "yes"), ("trend_loaded", "no"), ("done", True)):
        with pytest.raises((ValidationError, TypeError, ValueError, AttributeError)):
            setattr(state, field, bad)
            raise AssertionError(f"the state took {field} = {bad!r} after it was made: the runtime updates the "
                                 "state by assignment, so assignments are validated too (validate_assignment=True)")


def test_a_tool_outside_the_route_is_refused_without_running(target):
    episode = Episode.from_scenario(find("metric-trend"))
    executor = ex(target).DesignedExecutor(episode)
    result = executor.execute(episode, ToolCall("call_1", "render_trend_card", '{"card_type": "metric_trend"}'))
    body = read_body(result.content) or {}
    assert ran(episode) == [], f"render_trend_card is not one of this task's tools, yet it ran: {ran(episode)}"
    assert result.is_error and body.get("ok") is False, (
        f"the refusal of render_trend_card reads {result.content!r} (is_error={result.is_error}): it is an error "
        "result, `ok` false")
    assert body.get("retryable") is not True, "the refusal says retryable: asking again for that tool cannot work"


def test_a_step_already_done_is_answered_from_the_state(target):
    episode = Episode.from_scenario(find("lost-update"))
    executor = ex(target).DesignedExecutor(episode)
    record = first_call(episode)  # record_metric, as the model asks for it
    first = executor.execute(episode, record)
    again = executor.execute(episode, ToolCall("call_again", record.name, record.arguments))
    trend = ToolCall("call_trend", "get_metric_trend", '{"metric": "weight", "period": "7d"}')
    trend_first = executor.execute(episode, trend)
    trend_again = executor.execute(episode, ToolCall("call_trend_again", trend.name, trend.arguments))
    assert [name for name, _ in ran(episode)] == ["record_metric", "get_metric_trend"], (
        f"each step asked twice ran {[name for name, _ in ran(episode)]}: a step already done is answered from the "
        "state, not run again")
    for done, answer, what in ((first, again, "record_id"), (trend_first, trend_again, "average")):
        got, had = read_body(answer.content) or {}, read_body(done.content) or {}
        assert got.get("ok") is True and (got.get("data") or {}).get(what) == had["data"][what], (
            f"asked again, the done step answered {answer.content!r}: a success (`ok` true) carrying what the "
            f"state recorded ({what} {had['data'][what]!r})")


def test_a_record_asked_after_the_trend_is_still_recorded(target):
    episode = Episode.from_scenario(find("metric-trend"))
    executor = ex(target).DesignedExecutor(episode)
    executor.execute(episode, ToolCall("call_1", "get_metric_trend", '{"period": "14d"}'))
    executor.execute(episode, ToolCall("call_2", "record_metric", '{"value": "150/95", "date": "today"}'))
    assert ran(episode) == [("get_metric_trend", {"period": "14d"}),
                            ("record_metric", {"value": "150/95", "date": "today"})], (
        f"trend first, then the record: the tools ran {ran(episode)}. The record runs with the model's own "
        "arguments (the period slot is the trend's only), and the trend being done says nothing about the record")
    assert executor.state.metric_recorded and executor.state.trend_loaded


def test_malformed_trend_arguments_do_not_crash_the_executor(target):
    episode = Episode.from_scenario(find("metric-trend"))
    executor = ex(target).DesignedExecutor(episode)
    try:
        result = executor.execute(episode, ToolCall("call_1", "get_metric_trend", '{"period": 30d'))
    except Exception as exc:
        raise AssertionError(f"get_metric_trend with arguments that are not JSON raised {type(exc).__name__}: the "
                             "executor answers every call; a period it settles in code needs nothing from them") from exc
    assert isinstance(result, ToolMessage)
    assert all(args.get("period") == "14d" for name, args in ran(episode)), (
        f"the trend ran with {ran(episode)}: whatever the model wrote, the period is the settled 14d")


@pytest.mark.parametrize("content, ticks", [
    ('{"ok": true, "data": {"record_id": "r_9"}}', True),  # no `success` field: nothing says it failed
    ('{"ok": true, "data": ["r_9"]}', False),  # data is not an object
    ('{"ok": false, "data": {"record_id": "r_9"}}', False),
    ('{"record_id": "r_9"}', False),  # no `ok`
    ("Recorded.", False),  # plain text
])
def test_only_ok_with_an_object_as_data_ticks_an_item(target, content, ticks):
    episode = Episode.from_scenario(find("metric-trend"))
    executor = ex(target).DesignedExecutor(episode, Answers(content))
    try:
        executor.execute(episode, ToolCall("call_1", "record_metric", '{"value": "150/95", "date": "today"}'))
    except Exception as exc:
        raise AssertionError(f"record_metric answered {content!r} and the executor raised {type(exc).__name__}: "
                             "a result it cannot validate ticks nothing, it does not crash the run") from exc
    assert executor.state.metric_recorded is ticks, (
        f"record_metric answered {content!r}: metric_recorded became {executor.state.metric_recorded}. An item is "
        "ticked only from a validated result: `ok` true, `data` an object, and not `success: false`")


def test_two_runs_in_one_process_share_nothing(target):
    def outline(episode, result):
        return (result.stop_reason, result.model_calls, ran(episode))
    module = ex(target)
    names = ("metric-trend", "lost-update", "metric-trend")
    first = [outline(*designed_run(target, find(name), module)[::2]) for name in names]
    again = {name: outline(*designed_run(target, find(name))[::2]) for name in names}  # a fresh module each
    assert first == [again[name] for name in names], (
        "metric-trend, lost-update and metric-trend again with one module differ from fresh runs: a state, a "
        "route or a settled period kept at module or class level leaks from one run into the next")
