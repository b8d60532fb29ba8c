"""Lesson 7's intent router: a known intent narrows the tools; an unsure route never offers every tool."""
from __future__ import annotations

from reference.design.router import MAX_UNSURE, route_for
from reference.harness.episode import Episode
from reference.harness.trace import Trace
from reference.runs.registry import run_loop
from reference.sim.scenario.loading import catalogue, find
from reference.sim.scenario.schema_tools import AnnotationsDef


def test_a_known_intent_offers_its_tools_and_settles_its_slots():
    route = route_for(find("metric-trend"))
    assert route.confidence == "intent" and route.question is None
    assert route.tools == ("record_metric", "get_metric_trend") and route.slots == {"period": "14d"}


def test_an_unsure_route_never_offers_every_tool_of_a_large_set():
    for scenario in catalogue():
        route = route_for(scenario)
        if route.confidence == "unsure":
            assert len(route.tools) <= MAX_UNSURE and set(route.tools) <= {t.name for t in scenario.tools}


def test_an_unsure_route_keeps_the_tools_the_request_names():
    scenario = find("nested-business-failure")  # three tools: more than a known intent offers
    route = route_for(scenario)
    assert route.confidence == "unsure" and route.question is None
    assert 0 < len(route.tools) < len(scenario.tools)


def test_a_small_set_is_kept_without_asking():
    # the legitimate case: one read tool and an intent the router does not know; asking would be a false stop
    route = route_for(find("repeat-exact"))
    assert route.confidence == "unsure" and route.tools == ("get_order_status",) and route.question is None


def test_nothing_to_point_at_gets_a_clarifying_question_and_runs_nothing():
    scenario = find("fleet-troubleshoot")  # four tools, and the request names none of them
    route = route_for(scenario)
    assert route.tools == () and route.question
    episode = Episode.from_scenario(scenario, trace=Trace())
    result = run_loop("designed", episode)
    assert result.answer == route.question and result.model_calls == 0 and result.tool_calls == 0
    assert any(r["kind"] == "event" and r.get("action") == "clarify" for r in episode.trace.records)


def test_a_tool_annotated_destructive_is_not_offered_on_a_guess():
    scenario = find("repeat-exact")
    tool = scenario.tools[0].model_copy(update={"annotations": AnnotationsDef(destructiveHint=True)})
    route = route_for(scenario.model_copy(update={"tools": [tool]}))
    assert route.tools == () and route.question
