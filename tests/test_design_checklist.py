"""Lesson 7's checklist runtime: an item is done only when what it needs is in hand, a successful result
that is the outcome, not a call made."""
from __future__ import annotations

import json

import pytest

from reference import Episode, ToolMessage, find
from reference.core.toolresult import read_body
from reference.design.router import route_for
from reference.runs.registry import run_loop
from reference.runs.runner import completed
from reference.sim.scenario.loading import catalogue


def body(data) -> str:
    return json.dumps({"ok": True, "data": data})


@pytest.mark.parametrize("data", [{"commit": "9f3c", "state": "queued"}, {"run": 7, "status": "in_progress"},
                                  {"job": "j1", "status": "In Progress"}, {"task": "t1", "status": "working"},
                                  {"operation": "op-1", "status": "NotStarted"}, {"name": "op-2", "done": False}])
def test_work_still_under_way_is_not_in_hand(data):
    from reference.design.runtime import validated
    assert validated(body(data)) is None, f"{data} says its work is not finished: a call made, not the outcome"


@pytest.mark.parametrize("data", [{"commit": "9f3c", "state": "passed"}, {"order_id": "A1234", "status": "in_transit"},
                                  {"name": "op-2", "done": True, "response": {"rows": 3}}, {"sku": "SKU-42", "units": 17}])
def test_an_outcome_is_in_hand(data):
    # the legitimate case: a parcel in transit is a finished lookup of a moving thing, not unfinished work
    from reference.design.runtime import validated
    assert validated(body(data)) == data


def test_a_build_is_watched_until_it_has_passed():
    scenario = find("polling-annotated-legit")
    result = run_loop("designed", Episode.from_scenario(scenario))
    assert result.tool_calls == 3 and completed(scenario, result), (
        f"polling-annotated-legit under the designed loop: {result.tool_calls} tool calls, answer {result.answer!r}; "
        "queued and running are calls made, so the tool stays offered until the build has passed")


def results(run) -> set[str]:
    """The distinct data of a run's successful tool results (not an answer from the state, not feedback)."""
    out = set()
    for m in run.messages:
        got = read_body(m.content) if isinstance(m, ToolMessage) else None
        if got and got.get("ok") is True and "data" in got and "note" not in got:
            out.add(json.dumps(got["data"], sort_keys=True))
    return out


def test_no_checklist_closes_before_the_results_the_task_needs():
    closed_early = []
    for scenario in catalogue():
        if not scenario.expect.completable or route_for(scenario).question is not None:
            continue
        guarded = run_loop("guarded", Episode.from_scenario(scenario))
        designed = run_loop("designed", Episode.from_scenario(scenario))
        lost = completed(scenario, guarded) and not completed(scenario, designed)
        if lost and results(guarded) - results(designed):  # a task lost for want of a result the guarded run got
            closed_early.append(scenario.name)
    assert not closed_early, (f"tasks the designed loop loses on {closed_early} without a result the guarded loop got: "
                              "its checklist closed the tools before what the task needs was in hand")
