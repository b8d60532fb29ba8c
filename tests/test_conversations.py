"""Conversations, not only tasks: a scenario's `user_turns` are said when the model answers without tool calls.

The rule, in one sentence (docs/scenarios.md, `user_turns`): an answer without tool calls goes to the user, who
may reply; the run ends only when the user has nothing more to say. The legitimate case it must not break: a
scenario without `user_turns` ends on its first answer, as before.
"""
from __future__ import annotations

import pytest

from reference import Episode, StopReason, UserMessage, find, parse_scenario
from reference.core.errors import ScenarioError
from reference.harness.trace import Trace
from reference.loops.react import react_loop
from reference.sandbox.grading import run_candidate
from reference.runs.runner import completed, evaluate, executed_calls, run
from reference.sim.scenario.loading import catalogue

CONVERSATIONS = [s for s in catalogue() if s.user_turns]


def test_the_catalogue_holds_a_legitimate_conversation_and_a_failing_write_across_turns():
    names = {s.name for s in CONVERSATIONS}
    assert {"conversation-asks-order", "conversation-rephrased-write"} <= names, names


@pytest.mark.parametrize("loop", ["react", "guarded"])
def test_the_agent_asks_the_user_answers_and_the_agent_finishes(loop):
    scenario = find("conversation-asks-order")
    trace = Trace(capture_content=True)
    result = run(scenario, loop, trace=trace)
    assert completed(scenario, result) and result.model_calls == 3, result.summary()
    roles = [m.role for m in result.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "tool", "assistant"], roles
    assert result.messages[3] == UserMessage("Sure, it's order A1234.")
    said = [r for r in trace.records if r["kind"] == "user"]
    assert [(r["step"], r["text"]) for r in said] == [(1, "Sure, it's order A1234.")]
    assert not [c.detail for c in evaluate(scenario, result) if not c.ok]


def test_a_loop_that_takes_the_agents_question_for_the_answer_leaves_the_user_without_one():
    scenario = find("conversation-asks-order")
    episode = Episode.from_scenario(scenario)
    messages = episode.initial_messages()
    turn = episode.model.complete(messages, episode.tools.specs)  # a loop that never asks episode.user_reply()
    result = episode.finish(StopReason.COMPLETED, messages + [turn.message], answer=turn.text)
    assert not completed(scenario, result) and "Which order" in result.answer


def test_a_scenario_without_user_turns_ends_on_its_first_answer():
    episode = Episode.from_scenario(find("happy-path"))
    result = react_loop(episode, max_steps=8)
    assert result.stop_reason is StopReason.COMPLETED and episode.user_reply() is None
    assert sum(m.role == "user" for m in result.messages) == 1


def test_a_write_that_failed_is_not_run_again_after_the_user_rephrases():
    scenario = find("conversation-rephrased-write")
    naive, guarded = run(scenario, "react"), run(scenario, "guarded")
    assert [name for name, _ in executed_calls(naive)] == ["update_delivery_address"] * 3, "the naive loop repeats it"
    assert not completed(scenario, naive)
    assert [name for name, _ in executed_calls(guarded)] == ["update_delivery_address"]
    assert completed(scenario, guarded) and sum(m.role == "user" for m in guarded.messages) == 3, guarded.summary()


def test_a_conversation_runs_the_same_through_a_sandboxed_candidate():
    attempt = run_candidate(react_loop, "conversation-asks-order", sandbox=True)
    assert attempt.error is None, attempt.story()
    assert attempt.result.model_calls == 3 and completed(find("conversation-asks-order"), attempt.result)


BASE = {"name": "talk", "title": "a conversation", "user": "Hello",
        "tools": [{"name": "lookup", "rules": [{"result": {"data": {"x": 1}}}]}],
        "expect": {"completable": False, "stop_reason": "completed"}}


@pytest.mark.parametrize("turns,script,wanted", [
    (["And then?"], [{"call": {"tool": "lookup"}}], "user_turns: the model never answers without tool calls"),
    (["And then?", "Thanks"], [{"answer": "a"}, {"answer": "b"}],
     "user_turns: 2 user turns need 3 answers from the model's script (one before each turn, and the last word); "
     "it has 2"),
    (["   "], [{"answer": "a"}, {"answer": "b"}], "user_turns[0].text: a user turn says something"),
    ([{"txt": "hi"}], [{"answer": "a"}, {"answer": "b"}], "user_turns[0].txt: unknown field; did you mean 'text'?"),
], ids=["never-answers", "too-few-answers", "blank", "typo"])
def test_the_loader_refuses_turns_that_can_never_be_said_in_one_clear_line(turns, script, wanted):
    with pytest.raises(ScenarioError) as info:
        parse_scenario({**BASE, "user_turns": turns, "model": {"script": script}}, "talk.yaml")
    assert str(info.value).startswith("talk.yaml: ") and wanted in str(info.value), str(info.value)


def test_plain_strings_and_mappings_are_both_turns():
    scenario = parse_scenario({**BASE, "user_turns": ["plain", {"text": "mapped"}],
                               "model": {"script": [{"answer": "a"}, {"answer": "b"}, {"answer": "c"}]}})
    assert [t.text for t in scenario.user_turns] == ["plain", "mapped"]
    assert run(scenario, "react").answer == "c"
