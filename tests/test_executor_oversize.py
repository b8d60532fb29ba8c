"""Oversized results are the executor's job: clipped to a fair share of what is left, never the end of a run."""
from __future__ import annotations

import json

from reference import parse_scenario
from reference.core.toolresult import clip, read_body
from reference.harness.episode import Episode
from reference.harness.trace import Trace
from reference.parts.degrade.degrader import clipped
from reference.core.messages import ToolMessage
from reference.runs.runner import completed, run


def export_task(limits: dict, size_chars: int = 200_000):
    """One export far bigger than the budget can carry, then the answer from its head and tail."""
    return parse_scenario({
        "name": "big-export", "title": "one oversized export", "user": "How many tickets were filed in October?",
        "limits": limits,
        "tools": [{"name": "export_tickets", "description": "Every ticket of a month, as rows.",
                   "parameters": {"type": "object", "properties": {"month": {"type": "string"}}, "required": ["month"]},
                   "rules": [{"result": {"size_chars": size_chars}}]}],
        "model": {"script": [{"call": {"tool": "export_tickets", "args": {"month": "2026-10"}}},
                             {"answer": "The October export is large; I summarised what it shows."}]},
        "expect": {"completable": True, "stop_reason": "completed", "oracle_model_calls": 2,
                   "answer_contains": ["October"]}})


BUDGET = {"max_steps": 6, "max_run_tokens": 20_000}


def tool_results(result):
    return [m for m in result.messages if isinstance(m, ToolMessage)]


def test_a_result_over_its_fair_share_is_clipped_and_the_run_finishes():
    scenario = export_task(BUDGET)
    trace = Trace()
    result = run(scenario, "guarded", trace=trace)
    assert completed(scenario, result) and result.model_calls == 2, (result.stop_reason, result.detail)
    (event,) = [r for r in trace.records if r["kind"] == "event" and r["event"] == "clipped"]
    assert event["tool"] == "export_tickets" and event["chars"] > 200_000 > event["kept"], event
    (export,) = tool_results(result)
    body = read_body(export.content)
    assert body["ok"] is True and "characters cut from the middle" in body["clipped"]
    assert "call export_tickets again asking for less" in body["clipped"]
    assert len(export.content) < 200_000 / 10 and result.usage.total_tokens <= 20_000


def test_without_the_clipping_the_same_result_ends_the_run_on_the_budget():
    from reference.loops.guarded import guarded_loop
    from reference.runs.registry import full_parts

    episode = Episode.from_scenario(export_task(BUDGET))
    parts = full_parts(episode)
    parts.executor.budget = None  # the executor no longer knows the budget: the result goes in whole
    result = guarded_loop(episode, 6, parts)
    assert result.stop_reason.value == "token_budget", result.detail


def test_a_big_result_that_fits_reaches_the_model_whole():
    """The legitimate case: no token or cost budget, or a budget with room for it: nothing is clipped."""
    for limits in ({"max_steps": 6, "max_seconds": 60.0}, {"max_steps": 6, "max_run_tokens": 2_000_000}):
        scenario = export_task(limits, size_chars=40_000)
        result = run(scenario, "guarded")
        (export,) = tool_results(result)
        assert completed(scenario, result) and "clipped" not in (read_body(export.content) or {}), limits
        assert len(export.content) >= 40_000


def test_one_clipping_function_head_and_tail_with_a_note():
    text = json.dumps({"ok": True, "data": "HEAD " + "x" * 5000 + " TAIL"})
    body = read_body(clip(text, 300, ask="Ask for a page."))
    assert body["data"].startswith('{"ok": true, "data": "HEAD') and body["data"].endswith('TAIL"}')
    assert body["clipped"] == (f"{len(text) - 300:,} of {len(text):,} characters cut from the middle; shown: the first "
                               "200 and the last 100. Ask for a page.")
    assert clip(text, len(text)) == text
    degraded = clipped([ToolMessage("c1", text)], 300)  # the degrader's last-answer clipping is the same function
    assert degraded[0].content == clip(text, 300) and degraded[0].call_id == "c1"
