"""The real tool definitions (benchmarks/tool_corpus/), the flows built on them and the evaluation that runs them.

These tests check the machinery, not today's guard: the guard's figures are in docs/tool_corpus.md. The
expectations of the flows are checked by construction with the lesson-1 loop, which has no guard: every
legitimate flow completes under it, and every stuck flow runs to its step limit.
"""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import pytest

from reference import load_scenario, parse_scenario
from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
E = load_script("benchmarks/tool_corpus_eval.py")  # the evaluation brings its sibling modules with it
F = E.F
G = sys.modules["tool_corpus_generate"]

RECORDS = [json.loads(line) for line in F.CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
TOOLS = F.load_corpus()
KINDS = {"read_write_read", "start_then_poll", "paging", "conflict_retry", "batch_lookup", "long_task",
         "same_call", "echoed_empty", "guessing", "stuck_offset", "spellings"}
MCP_ANNOTATIONS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


@lru_cache(maxsize=None)
def all_flows() -> tuple:
    """Every generated flow, made on first use: a pytest worker that runs none of these tests does not build them."""
    return tuple(G.generate(TOOLS))


def one_per_kind() -> list:
    return list({f.kind: f for f in reversed(all_flows())}.values())


def test_the_corpus_holds_at_least_100_definitions_each_with_its_source():
    assert len(RECORDS) >= 100
    assert len({r["source"]["repository"] for r in RECORDS}) >= 3
    for r in RECORDS:
        assert r["name"] and isinstance(r["description"], str) and r["input_schema"].get("type") == "object", r["name"]
        assert set(r["source"]) == {"repository", "path", "commit", "licence"}, r["name"]
        assert len(r["source"]["commit"]) == 40, r["name"]
        assert r["http_method"] in (None, "GET", "PUT", "POST", "DELETE", "PATCH", "HEAD"), r["name"]


def test_no_definition_carries_a_kit_flag():
    for r in RECORDS:
        assert not set(r) & {"volatile", "metadata", "alternatives", "rules", "parameters"}, r["name"]
        assert r["annotations"] is None or set(r["annotations"]) <= MCP_ANNOTATIONS, r["name"]


def test_state_change_is_read_from_annotations_with_the_spec_defaults_then_from_the_http_method():
    tool = F.ToolDef("x", "", {"type": "object"}, {"title": "X"}, None, None)
    assert F.may_change_state(tool) is True  # a present annotations object: readOnlyHint defaults to false
    assert F.destructive(tool) is True  # and destructiveHint to true
    assert F.may_change_state(F.ToolDef("x", "", {}, {"readOnlyHint": True}, "POST", None)) is False
    assert F.may_change_state(F.ToolDef("x", "", {}, None, "GET", None)) is False
    assert F.may_change_state(F.ToolDef("x", "", {}, None, "PUT", None)) is True
    assert F.may_change_state(F.ToolDef("x", "", {}, None, None, None)) is None  # says neither: never picked


def test_every_kind_of_flow_is_generated_and_loads_as_a_scenario():
    assert {f.kind for f in all_flows()} == KINDS
    assert len({f.name for f in all_flows()}) == len(all_flows())
    for flow in all_flows():
        parse_scenario(flow.scenario, source=flow.name)  # the kit's loader refuses a wrong file
        assert flow.legit == (flow.onset is None), flow.name


def test_each_flow_picks_its_tools_by_their_facts():
    by_name = {t.kit_name: t for t in TOOLS}
    for flow in all_flows():
        used = [by_name[name] for name in flow.tools]
        calls = [s["call"]["tool"] for s in flow.scenario["model"]["script"] + flow.scenario["model"].get("cycle", [])
                 if "call" in s]
        changers = [t for t in used if F.may_change_state(t)]
        assert len(changers) <= 1 and all(F.may_change_state(t) is False for t in used if t not in changers)
        if flow.kind in ("read_write_read", "start_then_poll", "conflict_retry", "long_task"):
            assert changers and changers[0].kit_name in calls, flow.name
        else:
            assert not changers, flow.name  # paging, lookups and every stuck flow only read


def test_no_flow_depends_on_what_a_tool_is_called_or_how_it_describes_itself():
    rank = {name: i for i, name in enumerate(sorted({t.name for t in TOOLS}))}  # keeps every order as it was
    masked = [replace(t, name=f"t{rank[t.name]:04d}", description="") for t in TOOLS]
    renamed = {t.kit_name: f"t{rank[t.name]:04d}" for t in TOOLS}
    before = [(f.kind, [renamed[n] for n in f.tools]) for f in all_flows()]
    assert before == [(f.kind, f.tools) for f in G.generate(masked)]


def test_the_long_task_has_25_steps_within_the_users_step_limit():
    for flow in (f for f in all_flows() if f.kind == "long_task"):
        steps = len(flow.scenario["model"]["script"])
        assert 25 <= steps <= flow.scenario["limits"]["max_steps"], flow.name


def test_expectations_hold_by_construction_under_the_loop_with_no_guard():
    kit = E.import_kit(ROOT)
    for o in E.evaluate(one_per_kind(), ["react"], kit):
        assert o.verdict == ("ok" if o.legit else "not_intervened"), (o.flow, o.verdict, o.stop_reason)
        assert o.legit or o.model_calls == 30, o.flow  # a stuck flow never ends by itself


def test_the_evaluation_reports_every_kind_for_each_loop():
    kit = E.import_kit(ROOT)
    flows = one_per_kind()
    outcomes = E.evaluate(flows, ["guarded", "react"], kit)
    assert len(outcomes) == 2 * len(flows)
    assert all(o.verdict in ("ok", "intervened", "not_completed", "caught", "late", "not_stopped",
                             "not_intervened") for o in outcomes)
    text = E.report(outcomes, ["guarded", "react"], flows)
    assert all(f"| {kind} (" in text for kind in KINDS)
    assert "### guarded" in text and "### react" in text and "| rule (pattern / stop reason) |" in text


def test_a_flow_is_judged_by_what_acted_and_when_it_stopped():
    def judged(legit: bool, stop: str, calls: int, fired: list[str], completed: bool = False, onset: int = 2) -> str:
        out = E.Outcome("f", "k", legit, "guarded", stop, calls, fired, completed)
        return E.verdict(out, None if legit else onset)
    assert judged(False, "repeated_call", 2 + E.L.STOP_WITHIN, ["repeated_call"]) == "caught"
    assert judged(False, "repeated_call", 3 + E.L.STOP_WITHIN, ["repeated_call"]) == "late"
    assert judged(False, "no_progress", 5, []) == "caught"  # a guard's stop reason is the guard acting
    assert judged(False, "max_steps", 30, ["repeated_call"]) == "not_stopped"
    assert judged(False, "max_steps", 12, []) == "not_intervened"  # a step limit is not the guard acting
    assert judged(True, "completed", 4, [], completed=True) == "ok"
    assert judged(True, "completed", 4, ["repeated_call"], completed=True) == "intervened"
    assert judged(True, "same_result", 4, []) == "intervened"
    assert judged(True, "max_steps", 12, []) == "not_completed"
    out = E.Outcome("f", "k", True, "guarded", "repeated_call", 4, ["repeated_call [state epochs]"])
    assert out.rules == ["repeated_call [state epochs]", "stop:repeated_call"]
    assert "| repeated_call [state epochs] | 1 | 0 |" in E.rules_table([out], "guarded")


def test_flows_written_as_files_load_as_the_same_scenarios(tmp_path):
    G.main(["--write", str(tmp_path), "--per-kind", "1"])
    assert len(list(tmp_path.glob("*.yaml"))) == len(KINDS)
    for flow in G.generate(TOOLS, per_kind=1):
        assert load_scenario(tmp_path / f"{flow.name}.yaml") == parse_scenario(flow.scenario, source=flow.name) \
            .model_copy(update={"source": str(tmp_path / f"{flow.name}.yaml")})


def test_the_script_runs_against_a_kit_given_by_path(capsys):
    assert E.main(["--kit", str(ROOT), "--loops", "react", "--per-kind", "1", "--kinds", "same_call,paging"]) == 0
    out = capsys.readouterr().out
    assert "2 flows (1 legitimate, 1 stuck)" in out and f"kit {ROOT}" in out


@pytest.mark.slow
def test_every_generated_flow_runs_under_both_loops_and_its_expectation_holds_without_a_guard():
    kit = E.import_kit(ROOT)
    outcomes = E.evaluate(list(all_flows()), ["guarded", "react"], kit)
    assert len(outcomes) == 2 * len(all_flows())
    assert not [o.flow for o in outcomes if o.stop_reason == "crash"]
    react = [o for o in outcomes if o.loop == "react"]
    assert [o.flow for o in react if o.verdict != ("ok" if o.legit else "not_intervened")] == []
