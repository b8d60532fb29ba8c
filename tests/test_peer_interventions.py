"""The cooperative catalogue scenarios listen to other frameworks' interventions too, not only the kit's:
CrewAI's repeat message, the generic tool-error texts of the OpenAI Agents SDK, pydantic-ai
and LangGraph, and a peer's own repeat message in its own words."""
from __future__ import annotations

import glob
from pathlib import Path

import pytest

from reference import AssistantMessage, Episode, ToolMessage, find

ROOT = Path(__file__).resolve().parents[1]
COOPERATIVE = sorted(Path(p).stem for p in glob.glob(str(ROOT / "reference/sim/scenarios/*-cooperative.yaml")))
PEERS = {
    "crewai": "I tried reusing the same input, I must stop using this action input. I'll try something else instead.\n\n",
    "openai-agents": "An error occurred while running the tool. Please try again. Error: boom",
    "pydantic-ai": "[{'type': 'string_type', 'msg': 'Input should be a valid string'}]\n\nFix the errors and try again.",
    "langgraph": "Error: ValueError('boom')\n Please fix your mistakes.",
    "own words": "You already called get_order_status with the same arguments; use the result you have.",
}


def after_first_turn(name: str, result: str) -> tuple[Episode, object]:
    episode = Episode.from_scenario(find(name))
    messages = episode.initial_messages()
    turn = episode.model.complete(messages, episode.tools.specs)
    messages.append(AssistantMessage(turn.text, turn.tool_calls))
    messages += [ToolMessage(call.id, result, is_error=False) for call in turn.tool_calls]
    return episode, episode.model.complete(messages, episode.tools.specs)


def test_there_are_cooperative_scenarios():
    assert len(COOPERATIVE) >= 4, COOPERATIVE


@pytest.mark.parametrize("name", COOPERATIVE)
@pytest.mark.parametrize("peer", list(PEERS))
def test_a_peers_intervention_makes_the_cooperative_model_answer_as_the_kits_does(name, peer):
    scenario = find(name)
    kits_answer = scenario.model.reactions[0].then[-1].answer
    episode, turn = after_first_turn(name, PEERS[peer])
    assert not turn.tool_calls and turn.text == kits_answer, f"{name}: {peer}'s message was not heard: {turn}"
    assert episode.scripted.fired and episode.scripted.fired[0] > 0, "the kit's own reaction is the first one"


@pytest.mark.parametrize("name", COOPERATIVE)
def test_a_plain_result_is_not_taken_for_an_intervention(name):
    episode, turn = after_first_turn(name, '{"ok": true, "data": {"value": 1}}')
    assert episode.scripted.fired == [], f"{name}: a plain result fired a reaction"
