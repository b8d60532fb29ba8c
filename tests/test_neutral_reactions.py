"""A cooperative scripted model changes course when what it received for a call is not what the tool
returned for that call, decided from the run's books (reference/sim/books.py), whatever the words: the
kit's intervention, another framework's, a person's in any language, or none at all. Forwarding the
tool's own output, in any serialisation, never makes it change course."""
from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest
import yaml

from reference import AssistantMessage, Episode, ToolMessage, find

ROOT = Path(__file__).resolve().parents[1]
COOPERATIVE = sorted(Path(p).stem for p in glob.glob(str(ROOT / "reference/sim/scenarios/*-cooperative.yaml")))
INTERVENTIONS = {  # what loops and frameworks send in place of a tool's output: the model must hear every one
    "crewai": "I tried reusing the same input, I must stop using this action input. I'll try something else instead.\n\n",
    "openai-agents": "An error occurred while running the tool. Please try again. Error: boom",
    "pydantic-ai": "[{'type': 'string_type', 'msg': 'Input should be a valid string'}]\n\nFix the errors and try again.",
    "langgraph": "Error: ValueError('boom')\n Please fix your mistakes.",
    "own words": "You already called get_order_status with the same arguments; use the result you have.",
    "chinese": "这个工具刚才已经用同样的参数调用过了，请直接用已有的结果回答。",
    "json of its own": '{"status": "skipped", "reason": "duplicate"}',
    "empty": "",
}


def first_turn(name: str) -> tuple[Episode, list, object]:
    episode = Episode.from_scenario(find(name))
    messages = episode.initial_messages()
    turn = episode.model.complete(messages, episode.tools.specs)
    messages.append(AssistantMessage(turn.text, turn.tool_calls))
    return episode, messages, turn


def answer_with(name: str, result_for) -> tuple[Episode, object]:
    """The model's second turn after the loop answered each call of its first with `result_for(episode, call)`."""
    episode, messages, turn = first_turn(name)
    messages += [ToolMessage(call.id, result_for(episode, call)) for call in turn.tool_calls]
    return episode, episode.model.complete(messages, episode.tools.specs)


def test_there_are_cooperative_scenarios():
    assert len(COOPERATIVE) >= 4, COOPERATIVE


@pytest.mark.parametrize("name", COOPERATIVE)
@pytest.mark.parametrize("words", list(INTERVENTIONS))
def test_a_withheld_call_makes_the_cooperative_model_change_course_whatever_the_words(name, words):
    episode, turn = answer_with(name, lambda episode, call: INTERVENTIONS[words])
    assert episode.scripted.fired, f"{name}: an intervention in {words} words was not heard: {turn}"
    assert not turn.tool_calls and turn.text, f"{name}: the model did not answer: {turn}"


@pytest.mark.parametrize("name", COOPERATIVE)
def test_the_tools_own_output_forwarded_is_not_an_intervention(name):
    episode, turn = answer_with(name, lambda episode, call: episode.tools.execute(call).content)
    assert episode.scripted.fired == [], f"{name}: the tool's own output fired a reaction"


def reserialised(episode: Episode, call) -> str:
    body = json.loads(episode.tools.execute(call).content)
    return json.dumps(dict(reversed(list(body.items()))), indent=2)  # other key order, other spacing


def payload_alone(episode: Episode, call) -> str:
    return json.dumps(json.loads(episode.tools.execute(call).content)["data"])


@pytest.mark.parametrize("forward", [reserialised, payload_alone], ids=["reserialised", "payload alone"])
def test_a_loop_that_forwards_the_output_in_its_own_serialisation_is_not_intervening(forward):
    episode, turn = answer_with("repeat-exact-cooperative", forward)
    assert episode.scripted.fired == [] and turn.tool_calls, "a faithful forward was taken for an intervention"


def annotated(episode: Episode, call) -> str:
    body = json.loads(episode.tools.execute(call).content)
    return json.dumps({**body, "note": "called 3 times with these arguments"})


def replaced(episode: Episode, call) -> str:
    episode.tools.execute(call)  # the tool ran, but the loop sends something else
    return '{"ok": true, "data": {"order_id": "A1234"}}'


@pytest.mark.parametrize("change", [annotated, replaced], ids=["annotated", "replaced"])
def test_an_output_the_loop_added_to_or_replaced_is_an_intervention(change):
    episode, turn = answer_with("repeat-exact-cooperative", change)
    assert episode.scripted.fired == [0] and not turn.tool_calls


def test_a_result_for_a_call_the_tool_never_ran_is_an_intervention_even_if_it_copies_an_earlier_output():
    episode, messages, turn = first_turn("repeat-exact-cooperative")
    first = episode.tools.execute(turn.tool_calls[0])
    messages.append(first)
    turn = episode.model.complete(messages, episode.tools.specs)
    assert turn.tool_calls and episode.scripted.fired == []
    messages.append(AssistantMessage(turn.text, turn.tool_calls))
    messages.append(ToolMessage(turn.tool_calls[0].id, first.content))  # the cached answer, tool not run again
    turn = episode.model.complete(messages, episode.tools.specs)
    assert episode.scripted.fired == [0] and not turn.tool_calls


def test_without_books_a_model_never_takes_a_result_for_an_intervention():
    episode, messages, turn = first_turn("repeat-exact-cooperative")
    episode.scripted.outputs = None
    messages += [ToolMessage(call.id, "You already called this.") for call in turn.tool_calls]
    episode.model.complete(messages, episode.tools.specs)
    assert episode.scripted.fired == []


def test_no_catalogue_reaction_listens_for_the_kits_or_a_frameworks_wording_of_an_intervention():
    for path in sorted(glob.glob(str(ROOT / "reference/sim/scenarios/*.yaml"))):
        for reaction in (yaml.safe_load(Path(path).read_text()).get("model") or {}).get("reactions") or []:
            when = reaction["when"]
            assert "loop_detected" not in json.dumps(when), f"{path}: reacts to the kit's own error vocabulary"
            if when.get("contains") or when.get("matches"):
                assert when.get("error_type") or when.get("is_error") is not None, \
                    f"{path}: a reaction on words alone: {when}"
