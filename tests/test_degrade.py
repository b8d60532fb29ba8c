"""The reference degrader (reference/parts/degrade/): the structured result, and the optional last
tool-less answer with its budget check and its fallbacks."""
from __future__ import annotations

import json

import pytest

from reference import Episode, StopReason, find
from reference.parts.degrade import Degraded, Degrader
from reference.parts.degrade.degrader import clipped
from reference.parts.degrade.evidence import gather
from reference.parts.degrade.grounding import ungrounded, values_in
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Budget, Parts, Stop
from reference.wire.protocol import check_request
from reference.core.result import RunResult
from reference.core.toolresult import read_body
from reference.sim.scenario.schema import LimitsDef
from tests.helpers.degraded import FAILURES, HALLUCINATING, TinyBudget, TinyGuard


def guarded(scenario, degrader: Degrader, parts: str = "", max_steps: int | None = None,
            wire: str | None = None) -> tuple[Episode, RunResult]:
    scenario = find(scenario) if isinstance(scenario, str) else scenario
    if wire:
        scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
    episode = Episode.from_scenario(scenario)
    result = guarded_loop(episode, max_steps or scenario.limits.max_steps,
                          Parts(degrade=degrader, budget=TinyBudget() if "budget" in parts else
                                OneStep() if "steps" in parts else None,
                                guard=TinyGuard() if "guard" in parts else None))
    assert isinstance(result.degraded, Degraded), f"scenario `{scenario.name}`: no degraded result"
    return episode, result


class OneStep(Budget):
    """Stops after one model request, leaving the loop's second step for the last answer."""

    def before_request(self, episode, messages, step):
        return Stop(StopReason.MAX_STEPS, "one step only") if episode.ledger.steps else None

    def before_tool(self, episode, call):
        return None


def test_structured_result_for_mixed_failures():
    _, result = guarded(FAILURES, Degrader(final_answer=False))
    d = result.degraded
    assert [(o.tool, o.times) for o in d.obtained] == [("get_order", 3)], d.obtained
    assert {(t.tool, t.outcome, t.times) for t in d.tried} == {
        ("issue_refund", "business failure: REFUND_WINDOW_CLOSED", 3), ("get_invoice", "error: not_found", 3),
        ("get_shipment", "raised: ToolTimeout", 3)}, d.tried
    assert d.done == ["look up order R42"]
    assert d.unfinished == ["issue the refund", "find the invoice", "check the shipment",
                            "tell the user what happens next"]
    assert [s.action for s in d.next_steps] == ["narrow", "rephrase", "hand_over"]
    assert result.answer == d.answer and "REFUND_WINDOW_CLOSED" in d.answer and '"total_cny": 329' in d.answer
    assert json.loads(json.dumps(d.to_dict()))["kind"] == "resource"


def test_empty_results_are_reported_as_tried_not_found():
    _, result = guarded("empty-rephrase", Degrader(), "guard")
    d = result.degraded
    assert not d.obtained and [t.outcome for t in d.tried] == ["no results"] * 3
    assert d.final.status == "skipped" and "nothing was obtained" in d.final.reason
    assert result.model_calls == 3, "no final request when there is nothing to write from"
    assert "I found nothing usable" in d.answer and "SAML SSO on-premise" in d.answer


def test_final_answer_is_used_measured_and_in_the_transcript():
    episode, result = guarded("repeat-exact", Degrader(), "guard")
    d = result.degraded
    assert d.final.status == "used", d.final
    assert d.final.actual["input_tokens"] == d.final.estimate["input_tokens"], \
        "the estimate uses the same token count as the scripted model charges"
    assert d.final.actual["output_tokens"] <= d.final.estimate["output_tokens"]
    last = episode.ledger.steps[-1]
    assert last.tool_calls == [] and episode.scripted.requests[-1].tool_choice == "none"
    assert result.answer.startswith("From what I found so far:") and "in transit" in result.answer
    assert "Not done yet:\n- tell the user where the order is" in result.answer
    assert result.model_calls == sum(1 for m in result.messages if m.role == "assistant")


def test_invented_values_in_the_final_answer_are_rejected():
    _, result = guarded(HALLUCINATING, Degrader(), "guard")
    d = result.degraded
    assert d.final.status == "rejected" and "2026-11-29" in d.final.reason, d.final
    assert "2026-11-29" not in result.answer and result.answer == d.render()


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
def test_final_request_is_protocol_valid_after_parallel_calls_and_interventions(wire):
    for name, parts, steps in (("happy-path", "steps", 2), ("repeat-exact", "guard", None), ("alternation", "guard", None)):
        episode, result = guarded(name, Degrader(), parts, max_steps=steps, wire=wire)
        assert result.degraded.final.status == "used", (name, wire, result.degraded.final)
        check_request(result.messages, episode.tools.specs, wire)  # the transcript with the final turn


def test_final_answer_quotes_less_until_it_fits_the_budget():
    _, result = guarded("cost-blowup", Degrader(), "budget")
    d = result.degraded
    assert d.final.status == "used", d.final  # the whole history did not fit: the results were cut shorter
    assert result.cost_usd <= find("cost-blowup").limits.max_cost_usd


def test_final_answer_skipped_when_even_the_shortest_does_not_fit():
    class Tight:
        def headroom(self, episode):
            return {"steps": 3, "tokens": 50.0}

    _, result = guarded("cost-blowup", Degrader(budget=Tight()), "budget")
    d = result.degraded
    assert d.final.status == "skipped" and d.final.reason.startswith("over budget"), d.final
    assert result.answer == d.render()


def test_final_answer_is_one_of_the_steps_never_one_more():
    _, result = guarded("repeat-exact", Degrader(), "guard", max_steps=2)
    assert result.model_calls <= 2
    if result.model_calls == 2 and result.stop_reason.value != "completed":
        assert result.degraded.final.status in ("skipped", "used")


def test_clipped_results_make_the_final_answer_fit():
    _, result = guarded("cost-blowup", Degrader(clip_results=600), "budget")
    d = result.degraded
    assert d.final.status == "used", d.final
    assert result.cost_usd <= find("cost-blowup").limits.max_cost_usd
    assert d.final.actual["input_tokens"] < 1000


def test_reserve_pays_for_the_final_answer():
    scenario, degrader = find("token-blowup"), Degrader(reserve_fraction=0.25)
    _, without = guarded(scenario, degrader, "budget")  # the budget lets the loop spend all 60,000
    assert without.usage.total_tokens <= 60_000  # the last answer then fits only by quoting less
    assert without.degraded.final.status == "used" and without.degraded.final.actual["input_tokens"] < 15_000
    episode = Episode.from_scenario(scenario)
    result = guarded_loop(episode, 12, Parts(budget=_Fixed(degrader.loop_limits(scenario.limits)), degrade=degrader))
    final = result.degraded.final
    assert final.status == "used", final
    assert result.usage.total_tokens - final.actual["input_tokens"] - final.actual["output_tokens"] <= 45_000
    assert result.usage.total_tokens <= 60_000


class _Fixed(TinyBudget):
    """TinyBudget against given limits instead of the scenario's."""

    def __init__(self, limits: LimitsDef):
        self.limits = limits

    def before_request(self, episode, messages, step):
        saved = episode.scenario
        episode.scenario = saved.model_copy(update={"limits": self.limits})
        try:
            return super().before_request(episode, messages, step)
        finally:
            episode.scenario = saved


def test_the_budgets_headroom_decides_when_one_is_given():
    class Tight:
        def headroom(self, episode):
            return {"steps": 1, "tokens": 300.0}  # the run's budget is tighter than the scenario's limits

    _, result = guarded("repeat-exact", Degrader(budget=Tight()), "guard")
    assert result.degraded.final.status == "skipped" and "300 tokens left" in result.degraded.final.reason
    _, result = guarded("repeat-exact", Degrader(budget=OneStep()), "guard")  # keeps no books: scenario limits
    assert result.degraded.final.status == "used"


def test_a_failing_final_request_falls_back_to_the_structured_answer():
    class Broken:
        def __init__(self, inner):
            self.inner = inner

        def complete(self, messages, tools, *, tool_choice="auto"):
            if tool_choice == "none":
                raise ConnectionResetError(104, "Connection reset by peer")
            return self.inner.complete(messages, tools, tool_choice=tool_choice)

    scenario = find("repeat-exact")
    episode = Episode.from_scenario(scenario)
    episode.model.inner = Broken(episode.model.inner)
    result = guarded_loop(episode, 8, Parts(guard=TinyGuard(), degrade=Degrader()))
    d = result.degraded
    assert d.final.status == "failed" and "ConnectionResetError" in d.final.reason
    assert result.answer == d.render() and "in transit" in result.answer


def test_a_final_turn_with_tool_calls_is_not_appended():
    from reference.core.messages import ToolCall
    from reference.core.model import Turn, Usage

    class Disobedient:
        def __init__(self, inner):
            self.inner = inner

        def complete(self, messages, tools, *, tool_choice="auto"):
            if tool_choice == "none":
                return Turn(None, (ToolCall("call_x", "get_order_status", '{"order_id": "A1234"}'),), "tool_calls",
                            Usage(10, 5))
            return self.inner.complete(messages, tools, tool_choice=tool_choice)

    episode = Episode.from_scenario(find("repeat-exact"))
    episode.model.inner = Disobedient(episode.model.inner)
    result = guarded_loop(episode, 8, Parts(guard=TinyGuard(), degrade=Degrader()))
    assert result.degraded.final.status == "rejected"
    check_request(result.messages, episode.tools.specs, "openai-chat")


def test_provider_error_stop_skips_the_final_request():
    episode = Episode.from_scenario(find("repeat-exact"))
    guarded_loop(episode, 1)
    d = Degrader()(episode, [], Stop(StopReason.ERROR, "the provider kept answering 503"))
    assert d.final.status == "skipped" and [s.action for s in d.next_steps] == ["retry_later", "hand_over"]


def test_completed_is_not_degraded_and_bad_settings_are_refused():
    episode = Episode.from_scenario(find("happy-path"))
    with pytest.raises(ValueError, match="completed run is not degraded"):
        Degrader()(episode, [], Stop(StopReason.COMPLETED, ""))
    with pytest.raises(ValueError, match="reserve_fraction"):
        Degrader(reserve_fraction=1.0)
    with pytest.raises(ValueError, match="clip_results"):
        Degrader(clip_results=5)


def test_loop_limits_keep_the_reserve_and_leave_steps_alone():
    limits = LimitsDef(max_steps=10, max_run_tokens=60_000, max_cost_usd=0.2, max_seconds=60)
    got = Degrader(reserve_fraction=0.25).loop_limits(limits)
    assert (got.max_steps, got.max_run_tokens, got.max_seconds) == (10, 45_000, 45)
    assert got.max_cost_usd == pytest.approx(0.15)
    assert Degrader(final_answer=False).loop_limits(limits) == limits


def test_grounding_finds_invented_values_only():
    sources = ['{"order_id": "A1234", "eta": "2026-12-02", "revenue_cny": 1200000, "value": 0.12}']
    assert values_in("v2.31.0 at 02:55, 502 errors") == ["v2.31.0", "02:55", "502"]
    assert ungrounded("Order A1234 arrives 2026-12-02; revenue 1,200,000; error rate 0.12 after 3 tries", sources) == []
    assert ungrounded("Delivered 2026-11-29 at 14:05", sources) == ["2026-11-29", "14:05"]


def test_clipped_history_keeps_call_ids():
    episode, result = guarded("token-blowup", Degrader(final_answer=False), "budget")
    short = clipped(result.messages, 100)
    assert [getattr(m, "call_id", None) for m in short] == [getattr(m, "call_id", None) for m in result.messages]
    cut = [read_body(m.content) for m, before in zip(short, result.messages) if m.role == "tool" and m is not before]
    assert cut and all(len(body["data"]) <= 100 + len(" … ") and body["clipped"] for body in cut)
    check_request(short, episode.tools.specs, "anthropic")
    obtained, _ = gather(episode)
    assert [o.arguments["page"] for o in obtained] == list(range(1, len(obtained) + 1))
