"""Shadow mode: the guarded loop's own guard walks recorded conversations (reference/diagnosis/shadow.py)."""
from __future__ import annotations

import json

from reference.diagnosis import samples
from reference.diagnosis.logs import read_log, write
from reference.diagnosis.shadow import NO_DEFINITIONS, judge
from reference.harness.episode import Episode
from reference.harness.trace import Trace
from reference.runs.registry import run_loop
from reference.sim.scenario.loading import find


def _one(tmp_path, data, name="log.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    (c,) = list(read_log(path))
    return judge(c)


def test_a_write_that_fails_the_same_way_across_user_turns_is_flagged_then_stopped(tmp_path):
    j = _one(tmp_path, write.chat(samples.support_loop()))
    verdicts = [(r["message"], r["tool"], r["verdict"]) for r in j.calls]
    assert verdicts == [(2, "get_order", "run"), (4, "update_shipping_address", "run"),
                        (8, "update_shipping_address", "intervene"), (10, "update_shipping_address", "stop"),
                        (14, "update_shipping_address", "stop")]
    flagged = j.calls[2]
    assert flagged["rule"] == "repeated_call" and flagged["why"]
    assert flagged["evidence"] == [4]  # the earlier identical call it compared this one with
    assert j.shape == "repeated_call" and j.first_flag == 8 and j.calls_after_flag == 3
    assert j.user_turns == [1, 7, 13]  # the flag comes after the user's second turn, not before it
    assert 0 < j.tokens_after_flag < j.tokens and j.tokens_estimated
    assert NO_DEFINITIONS in j.notes


def test_a_healthy_conversation_is_not_flagged(tmp_path):
    j = _one(tmp_path, write.chat(samples.support_ok()))
    assert [r["verdict"] for r in j.calls] == ["run", "run"] and j.shape == "clean" and j.first_flag is None
    assert j.tokens_after_flag == 0 and j.calls_after_flag == 0


def test_the_same_verdicts_in_every_format(tmp_path):
    turns = samples.support_loop()
    logs = {"chat": write.chat(turns), "anthropic": write.anthropic(turns), "responses": write.responses(turns),
            "otel": write.otlp(turns, "t")}
    seen = {name: [(r["tool"], r["verdict"], r["rule"]) for r in _one(tmp_path, data, f"{name}.json").calls]
            for name, data in logs.items()}
    assert len({json.dumps(v) for v in seen.values()}) == 1, seen


def test_tool_definitions_in_the_log_are_used(tmp_path):
    """A tool whose MCP annotations say it reads a world that moves (read-only, open world) may be polled: its
    repeat runs and is judged by its result, and the note about missing definitions is not given."""
    turns = [("user", "is the export done?"),
             ("assistant", "", [("1", "export_status", {"export_id": "e1"})]), ("tool", "1", '{"state": "running"}', False),
             ("assistant", "", [("2", "export_status", {"export_id": "e1"})]), ("tool", "2", '{"state": "done"}', False),
             ("assistant", "It is done.", [])]
    tools = [{"type": "function", "function": {"name": "export_status", "description": "The progress of an export job.",
                                               "parameters": {"type": "object", "properties": {"export_id": {"type": "string"}}}},
              "annotations": {"readOnlyHint": True, "openWorldHint": True}}]
    j = _one(tmp_path, {"messages": write.chat(turns), "tools": tools})
    assert [r["verdict"] for r in j.calls] == ["run", "run"]
    assert NO_DEFINITIONS not in j.notes
    bare = _one(tmp_path, {"messages": write.chat(turns)}, "bare.json")
    assert NO_DEFINITIONS in bare.notes


def test_shadow_mode_says_what_the_guarded_loop_did_on_the_same_run(tmp_path):
    """The react loop's trace of a looping scenario, judged in shadow, flags the call the guarded loop's guard
    flagged live, with the same rule."""
    scenario = find("repeat-exact")
    path = tmp_path / "react.jsonl"
    episode = Episode.from_scenario(scenario, trace=Trace(str(path), capture_content=True))
    run_loop("react", episode)
    episode.trace.close()
    (c,) = list(read_log(path))
    j = judge(c)
    live = Episode.from_scenario(scenario, trace=Trace(capture_content=True))
    run_loop("guarded", live)
    guard_events = [r for r in live.trace.records if r["kind"] == "event" and r["event"] == "guard"]
    assert guard_events, "the scenario is a loop the guarded loop catches"
    flagged = [r for r in j.calls if r["verdict"] != "run"]
    # shadow mode judges a log whose calls all ran: a warning is "intervene" whether live it came before or after
    assert flagged and flagged[0]["verdict"] == guard_events[0]["action"].removesuffix("_after_result")
    first_live = [x for r in live.trace.records if r["kind"] == "step" for x in r["tool_calls"]]
    index = [x["id"] for x in first_live].index(guard_events[0]["call_id"])
    assert j.calls.index(flagged[0]) == index


def test_judging_is_pure(tmp_path):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(write.chat(samples.coding_loop())))
    (c,) = list(read_log(path))
    assert judge(c).to_json() == judge(c).to_json()


def test_a_call_paired_by_position_says_so_in_its_verdict(tmp_path):
    log = [{"role": "user", "content": "check twice"},
           {"role": "assistant", "tool_calls": [{"id": "x", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
           {"role": "tool", "tool_call_id": "x", "content": "1"},
           {"role": "assistant", "tool_calls": [{"id": "x", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
           {"role": "tool", "tool_call_id": "x", "content": "2"}]
    j = _one(tmp_path, log)
    assert [c.get("paired") for c in j.calls] == [None, "by position"]
