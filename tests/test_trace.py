"""Lesson 6: every run leaves a trace, written as it happens, redacted, and free of charge."""
from __future__ import annotations

import json

import pytest

from reference.core.errors import ScriptExhausted
from reference.core.redact import found, redact_text
from reference.harness.episode import Episode
from reference.harness.trace import Trace, canonical_fingerprint, load
from reference.loops.react import react_loop
from reference.sandbox.grading import run_candidate
from reference.runs.registry import run_loop
from reference.sim.scenario.loading import find, parse_scenario

SECRET = "postgresql://orders_rw:FAKE-PASSWORD-not-real@db:5432/orders"


def _leaky() -> dict:
    return {"name": "leaky", "title": "A tool result with a credential in it", "user": "Status of order A1?",
            "tools": [{"name": "get_order", "rules": [{"result": {"data": {"status": "shipped", "debug": SECRET}}}]}],
            "model": {"script": [{"call": {"tool": "get_order", "args": {"id": "A1"}}}, {"answer": "Shipped."}]},
            "expect": {"completable": True, "stop_reason": "completed"}}


def test_the_trace_is_jsonl_written_while_the_run_goes(tmp_path):
    path = tmp_path / "run.jsonl"
    episode = Episode.from_scenario(find("happy-path"), trace=Trace(path))
    lines_before = path.read_text().splitlines()
    assert [json.loads(l)["kind"] for l in lines_before] == ["run"]  # the header is there before any request
    run_loop("react", episode)
    kinds = [r["kind"] for r in load(path)]
    assert kinds == ["run", "step", "tool", "tool", "results", "step", "finish"]
    assert load(path) == episode.trace.records


def test_a_crashed_run_still_leaves_its_trace(tmp_path):
    data = _leaky()
    data["model"]["script"] = data["model"]["script"][:1]  # the script ends: the next request raises
    path = tmp_path / "crash.jsonl"
    episode = Episode.from_scenario(parse_scenario(data), trace=Trace(path))
    with pytest.raises(ScriptExhausted):
        react_loop(episode, max_steps=4)
    kinds = [r["kind"] for r in load(path)]
    assert kinds == ["run", "step", "tool", "results", "error"]
    assert load(path)[-1]["error_type"] == "ScriptExhausted"


@pytest.mark.parametrize("loop", ["react", "guarded"])
def test_tracing_costs_no_time_and_no_tokens(tmp_path, loop):
    plain = run_loop(loop, Episode.from_scenario(find("token-blowup")))
    traced = run_loop(loop, Episode.from_scenario(find("token-blowup"), trace=Trace(tmp_path / "t.jsonl",
                                                                                     capture_content=True)))
    assert plain.summary() == traced.summary()


def test_steps_carry_tokens_cost_latency_and_fingerprinted_calls():
    episode = Episode.from_scenario(find("repeat-noisy"))
    result = run_loop("react", episode)
    steps = [r for r in episode.trace.records if r["kind"] == "step"]
    assert [s["input_tokens"] for s in steps] == [s.input_tokens for s in result.steps]
    assert steps[-1]["tokens_so_far"] == result.usage.total_tokens
    assert sum(s["cost_usd"] for s in steps) == pytest.approx(result.cost_usd)
    assert all(s["latency"] > 0 for s in steps)
    first, second = steps[0]["tool_calls"][0], steps[1]["tool_calls"][0]
    assert first["arguments"] != second["arguments"]  # the raw text differs (key order, case, spaces)...
    assert {c["fingerprint"] for s in steps for c in s["tool_calls"]} != {first["fingerprint"]}


def test_the_small_canonicaliser_ignores_key_order_spacing_numbers_and_case_where_the_schema_says():
    schema = {"properties": {"origin": {"type": "string", "format": "iata"}, "n": {"type": "integer"}}}
    assert (canonical_fingerprint("f", '{"origin": " pek ", "n": "2"}', schema)
            == canonical_fingerprint("f", '{"n":2.0,"origin":"PEK"}', schema))
    assert canonical_fingerprint("f", '{"id": "a1"}') != canonical_fingerprint("f", '{"id": "A1"}')
    assert canonical_fingerprint("f", "{not json") == "f {not json"


def test_results_errors_and_retries_are_recorded():
    episode = Episode.from_scenario(find("flaky-timeout"))
    run_loop("guarded", episode)
    attempts = [r for r in episode.trace.records if r["kind"] == "tool"]
    assert [(a["attempt"], a["status"], a["error_type"]) for a in attempts] == [
        (1, "raised", "ToolTimeout"), (2, "raised", "ToolTimeout"), (3, "ok", None)]
    episode = Episode.from_scenario(find("flaky-timeout"))
    run_loop("react", episode)
    results = [r for rec in episode.trace.records if rec["kind"] == "results" for r in rec["results"]]
    assert [(r["status"], r["error_type"]) for r in results] == [("error", "timeout"), ("error", "timeout"),
                                                                 ("ok", None)]
    assert all(r["length"] == len(r["content"]) for r in results)


def test_the_guarded_loop_reports_verdicts_budget_and_trip():
    episode = Episode.from_scenario(find("repeat-exact"))
    run_loop("guarded", episode)
    events = [r for r in episode.trace.records if r["kind"] == "event"]
    assert {e["event"] for e in events} >= {"budget", "guard", "trip"}
    # the second identical read ran, and its unchanged answer was replaced; the third did not run
    assert [e["action"] for e in events if e["event"] == "guard"] == ["intervene_after_result", "stop"]
    assert events[-1]["reason"] == episode.trace.records[-1]["stop_reason"] == "repeated_call"


def test_a_candidates_own_loop_is_traced_too():
    def my_loop(episode, max_steps):
        return react_loop(episode, max_steps)
    attempt = run_candidate(my_loop, "happy-path")
    assert attempt.episode.trace.records[-1]["kind"] == "finish"
    assert attempt.episode.trace.records[-1]["loop"] == "my_loop"


def test_secrets_are_masked_and_prompts_kept_only_with_content_capture(tmp_path):
    for capture in (False, True):
        path = tmp_path / f"{capture}.jsonl"
        run_loop("react", Episode.from_scenario(parse_scenario(_leaky()), trace=Trace(path, capture_content=capture)))
        text = path.read_text()
        assert "FAKE-PASSWORD" not in text
        assert ("Status of order A1?" in text) is capture
        header = load(path)[0]
        assert header["prompt_chars"]["user"] == len("Status of order A1?")


def test_redaction_keeps_the_length_and_the_harmless_text():
    for text in [SECRET, "password=hunter22 on db-7", "Authorization: Bearer FAKEtokenFAKEtoken0000",
                 "api_key: sk-FAKE0000notarealkey0000", "AKIAFAKEFAKEFAKEFAKE rejected"]:
        masked = redact_text(text)
        assert len(masked) == len(text) and masked != text and not found(masked), masked
    assert redact_text("Flight MU5138 departs at 08:00 from example.com") == \
        "Flight MU5138 departs at 08:00 from example.com"
