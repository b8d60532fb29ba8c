"""The scripted model: a deterministic stand-in for a provider, with a script, a log and reactions."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from reference import (AssistantMessage, Episode, ProtocolError, ScriptExhausted, ScriptedModel, SimClock,
                       ToolMessage, UserMessage, parse_scenario)
from reference.sim import tokens
from reference.loops.react import react_loop
from reference.wire.protocol import WIRE_FORMATS, to_wire

LOOKUP = {"name": "lookup", "description": "Look a key up.",
          "parameters": {"type": "object", "properties": {"key": {"type": "string"}}},
          "rules": [{"result": {"data": {"value": 42}}}]}


def scenario(model: dict[str, Any], **extra: Any):
    return parse_scenario({"name": "scripted-test", "title": "scripted model test", "user": "Look up k1.",
                           "tools": [LOOKUP], "model": model,
                           "expect": {"completable": True, "stop_reason": "completed"}, **extra}, "scripted-test.yaml")


def lookup(key: str) -> dict[str, Any]:
    return {"call": {"tool": "lookup", "args": {"key": key}}}


def episode(model: dict[str, Any], seed: int | None = None) -> Episode:
    return Episode.from_scenario(scenario(model), seed=seed)


def drive(ep: Episode, steps: int) -> list[Any]:
    """Play `steps` turns the way a correct loop does: history grows, every call is answered."""
    messages, turns = ep.initial_messages(), []
    for _ in range(steps):
        t = ep.model.complete(messages, ep.tools.specs)
        turns.append(t)
        messages.append(t.message)
        messages += [ep.tools.execute(c) for c in t.tool_calls]
    return turns


def keys(turns: list[Any]) -> list[str]:
    return [json.loads(c.arguments)["key"] if c.arguments.startswith("{") else c.arguments
            for t in turns for c in t.tool_calls]


def test_plays_its_steps_first_in_first_out():
    ep = episode({"script": [lookup("k1"), lookup("k2"), {"answer": "k1 and k2 are 42."}]})
    turns = drive(ep, 3)
    assert keys(turns) == ["k1", "k2"], f"the calls came out of order: {keys(turns)}"
    assert (turns[2].text, turns[2].tool_calls, turns[2].finish_reason) == ("k1 and k2 are 42.", (), "stop")
    assert [t.finish_reason for t in turns[:2]] == ["tool_calls", "tool_calls"]


def test_keeps_a_log_of_every_request_as_received():
    ep = episode({"script": [lookup("k1"), {"answer": "42"}]})
    drive(ep, 2)
    log = ep.scripted.requests
    assert len(log) == 2, f"two requests were sent, the log holds {len(log)}"
    assert [type(m).__name__ for m in log[1].messages] == \
        ["SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage"], log[1].messages
    assert log[1].wire_body == to_wire(log[1].messages, log[1].tools, "openai-chat"), "the log keeps the wire body"
    assert [t.name for t in log[0].tools] == ["lookup"] and log[0].tool_choice == "auto"


def test_a_refused_request_is_never_logged_nor_answered():
    ep = episode({"script": [lookup("k1"), {"answer": "42"}]})
    messages = ep.initial_messages()
    turn = ep.model.complete(messages, ep.tools.specs)
    with pytest.raises(ProtocolError):  # the loop forgot to answer the call
        ep.model.complete(messages + [turn.message, UserMessage("and?")], ep.tools.specs)
    assert len(ep.scripted.requests) == 1 and ep.scripted.unused_steps == 1, \
        "a request the API refuses must not reach the model nor consume a step"


def test_raises_script_exhausted_with_a_clear_message_after_the_last_step():
    ep = episode({"script": [lookup("k1"), lookup("k2")]})
    drive(ep, 2)
    with pytest.raises(ScriptExhausted) as info:
        drive(ep, 1)
    assert str(info.value) == ("scripted-test: the model was called 3 times but its script has 2 step(s) and no "
                               "cycle"), f"unclear message: {info.value}"


def test_reports_unused_steps_and_assert_script_used_says_how_many():
    ep = episode({"script": [lookup("k1"), lookup("k2"), {"answer": "42"}]})
    drive(ep, 1)
    assert ep.scripted.unused_steps == 2
    with pytest.raises(AssertionError, match=r"^scripted-test: 2 scripted step\(s\) were never requested$"):
        ep.scripted.assert_script_used()
    drive(ep, 2)
    ep.scripted.assert_script_used()  # every step played: no complaint


def test_repeat_expands_a_step_and_counts_in_unused_steps():
    ep = episode({"script": [{**lookup("k1"), "repeat": 3}, {"answer": "42"}]})
    assert ep.scripted.unused_steps == 4
    assert keys(drive(ep, 3)) == ["k1"] * 3


def test_a_cycle_plays_forever_after_the_script():
    ep = episode({"script": [lookup("start")], "cycle": [lookup("a"), lookup("b")]})
    turns = drive(ep, 41)
    assert keys(turns) == ["start"] + ["a", "b"] * 20, "the cycle must repeat in order, without end"
    assert ep.scripted.unused_steps == 0, "a cycle never counts as unused"


LOOP_DETECTED = json.dumps({"ok": False, "error_type": "loop_detected", "retryable": False,
                            "message": "You already made this call; answer with what you have."})


def intervene(ep: Episode, messages: list[Any]) -> Any:
    """A guard's intervention: answer the model's pending call with a loop_detected error."""
    turn = ep.model.complete(messages, ep.tools.specs)
    messages.append(turn.message)
    messages += [ToolMessage(c.id, LOOP_DETECTED, is_error=True) for c in turn.tool_calls]
    return turn


def test_cooperative_model_switches_plan_after_a_matching_result_and_the_reaction_fires_once():
    ep = episode({"script": [lookup("k1")], "cycle": [lookup("k1")],
                  "reactions": [{"when": {"error_type": "loop_detected"},
                                 "then": [lookup("k2"), {"answer": "k1 is 42."}]}]})
    messages = ep.initial_messages()
    intervene(ep, messages)  # k1, answered with loop_detected
    after = intervene(ep, messages)  # the reaction fires: the new plan starts (k2), also answered loop_detected
    last = ep.model.complete(messages, ep.tools.specs)
    assert keys([after]) == ["k2"], f"after the intervention the model should follow its new plan, got {keys([after])}"
    assert last.text == "k1 is 42." and not last.tool_calls, \
        f"a reaction fires once: the second loop_detected must not restart the plan, got {last}"
    assert ep.scripted.fired == [0]


def test_a_result_that_does_not_match_leaves_the_plan_alone():
    ep = episode({"script": [lookup("k1")], "cycle": [lookup("k1")],
                  "reactions": [{"when": {"error_type": "loop_detected"}, "then": [{"answer": "done"}]}]})
    assert keys(drive(ep, 4)) == ["k1"] * 4 and ep.scripted.fired == []


def test_stubborn_model_without_reactions_carries_on_after_an_intervention():
    ep = episode({"script": [lookup("k1")], "cycle": [lookup("k1")]})
    messages = ep.initial_messages()
    turns = [intervene(ep, messages) for _ in range(5)]
    assert keys(turns) == ["k1"] * 5, "a stubborn model ignores the intervention and repeats itself"


def policy_run(seed: int) -> list[tuple[str, str]]:
    model = {"script": [lookup(f"k{i}") for i in range(12)], "policy": {"repeat_last_call": 0.5}}
    turns = drive(episode(model, seed=seed), 12)
    return [(c.id, json.loads(c.arguments)["key"]) for t in turns for c in t.tool_calls]


def test_seeded_repeat_policy_is_deterministic_per_seed_and_differs_across_seeds():
    first, again, other = policy_run(1), policy_run(1), policy_run(2)
    assert first == again, "the same seed must give the same run, call ids included"
    assert [k for _, k in first] != [k for _, k in other], "seeds 1 and 2 gave the same repeats"
    repeats = sum(a == b for (_, a), (_, b) in zip(first, first[1:]))
    assert 0 < repeats < 11, f"with p=0.5 over 12 steps, seed 1 repeated {repeats} times"
    assert len({i for i, _ in first}) == len(first), "a repeated call still gets a fresh call id"


@pytest.mark.parametrize("wire", WIRE_FORMATS)
def test_usage_counts_the_whole_request_so_input_tokens_grow_with_the_history(wire):
    ep = episode({"wire": wire, "script": [lookup(f"k{i}") for i in range(4)] + [{"answer": "All 42."}]})
    turns = drive(ep, 5)
    for request, turn in zip(ep.scripted.requests, turns):
        assert turn.usage.input_tokens == tokens.request_tokens(request.wire_body), \
            f"{wire}: input tokens must be the estimate over the whole request body"
        assert turn.usage.output_tokens == tokens.output_tokens(turn.text, turn.tool_calls)
    sizes = [t.usage.input_tokens for t in turns]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes), f"{wire}: input tokens did not grow: {sizes}"
    assert [s.input_tokens for s in ep.ledger.steps] == sizes, "the ledger meters what the model reported"


def test_latency_advances_the_simulated_clock_by_the_scenarios_formula():
    latency = {"base_seconds": 1.5, "per_output_token_seconds": 0.1, "per_input_token_seconds": 0.001}
    ep = episode({"script": [lookup("k1"), {"answer": "42"}], "latency": latency})
    before = ep.clock.elapsed
    turn = drive(ep, 1)[0]
    spent = ep.ledger.steps[0].model_seconds
    expected = 1.5 + 0.1 * turn.usage.output_tokens + 0.001 * turn.usage.input_tokens
    assert spent == pytest.approx(expected), f"model latency {spent} s, expected {expected} s"
    assert ep.clock.elapsed - before == pytest.approx(expected + 0.2), "plus the tool's default 0.2 s latency"


def test_tool_choice_none_yields_a_text_answer_without_consuming_the_script():
    ep = episode({"script": [lookup("k1"), lookup("k2"), lookup("k3")]})
    messages = ep.initial_messages()
    first = ep.model.complete(messages, ep.tools.specs)
    messages += [first.message, ep.tools.execute(first.tool_calls[0])]
    final = ep.model.complete(messages, ep.tools.specs, tool_choice="none")
    assert final.tool_calls == () and final.finish_reason == "stop"
    assert final.text == 'From what I found so far: {"value": 42}', f"answer from the tool results: {final.text!r}"
    assert ep.scripted.unused_steps == 2 and ep.scripted.requests[-1].tool_choice == "none"


def test_tool_choice_none_uses_the_scenarios_answer_without_tools():
    ep = episode({"script": [lookup("k1")], "answer_without_tools": "I could not finish; k1 is 42."})
    final = ep.model.complete(ep.initial_messages(), ep.tools.specs, tool_choice="none")
    assert final.text == "I could not finish; k1 is 42."


def test_rejects_an_unknown_tool_choice():
    with pytest.raises(ValueError, match="tool_choice must be 'auto' or 'none'"):
        episode({"script": [lookup("k1")]}).model.complete([UserMessage("hi")], [], tool_choice="required")


@pytest.mark.parametrize("wire,pattern", [("openai-chat", r"call_[A-Za-z0-9]{24}"),
                                          ("openai-responses", r"call_[A-Za-z0-9]{24}"),
                                          ("anthropic", r"toolu_01[A-Za-z0-9]{22}")])
def test_call_ids_look_like_the_providers_own(wire, pattern):
    ep = episode({"wire": wire, "script": [{"calls": [lookup("a")["call"], lookup("b")["call"]]}, lookup("c")]})
    ids = [c.id for t in drive(ep, 2) for c in t.tool_calls]
    assert all(re.fullmatch(pattern, i) for i in ids), f"{wire}: ids {ids} do not look like {pattern}"
    assert len(set(ids)) == 3, f"{wire}: call ids must be unique, got {ids}"
    assert ids == [c.id for t in drive(episode({"wire": wire, "script": [
        {"calls": [lookup("a")["call"], lookup("b")["call"]]}, lookup("c")]}), 2) for c in t.tool_calls], \
        "ids are seeded: the same scenario gives the same ids"


def test_a_forced_call_id_is_used_as_written():
    ep = episode({"script": [{"call": {"tool": "lookup", "args": {"key": "k1"}, "id": "call_fixed"}}]})
    assert drive(ep, 1)[0].tool_calls[0].id == "call_fixed"


def test_the_reference_loop_on_a_scripted_model_meets_a_simple_expectation():
    ep = episode({"script": [lookup("k1"), {"answer": "k1 is 42."}]})
    result = react_loop(ep, max_steps=5)
    assert (result.stop_reason.value, result.answer, result.model_calls) == ("completed", "k1 is 42.", 2)
    assert isinstance(ep.scripted, ScriptedModel) and isinstance(ep.clock, SimClock)
    assert isinstance(result.messages[2], AssistantMessage)
