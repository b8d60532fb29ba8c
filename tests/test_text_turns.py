"""Tool steps a client sends as text (smolagents: "Calling tools:" then "Observation:" or "Error:")
are read back as tool calls and results, so a cooperative model's books-based reaction hears them."""
from reference.core.messages import AssistantMessage, SystemMessage, ToolMessage, ToolSpec, UserMessage
from reference.serve.scenario_model import ScenarioModel
from reference.serve.text_turns import read_text_turns
from reference.sim.books import ToolOutputs
from reference.sim.scenario.loading import find

OWN = '{"ok": true, "data": {"order_id": "A1234", "status": "in transit"}}'
CALLS = ("Calling tools:\n[{'id': 'call_1', 'type': 'function', "
         "'function': {'name': 'get_order_status', 'arguments': {'order_id': 'A1234'}}}]")


def smolagents_turns(observation: str) -> list:
    return [SystemMessage("You track orders."), UserMessage("New task:\nWhere is A1234?"),
            AssistantMessage(CALLS), UserMessage(observation)]


def test_calls_and_observations_written_as_text_are_read_back_as_tool_turns():
    read = read_text_turns(smolagents_turns("Observation:\n" + OWN))
    assert isinstance(read[2], AssistantMessage) and read[2].tool_calls[0].name == "get_order_status"
    assert read[2].tool_calls[0].parsed_arguments() == {"order_id": "A1234"}
    assert read[3] == ToolMessage("call_1", OWN)
    failed = read_text_turns(smolagents_turns("Call id: call_1\nError:\nTimeoutError: timed out\nNow let's retry"))
    assert failed[3] == ToolMessage("call_1", "TimeoutError: timed out\nNow let's retry", is_error=True)


def test_prose_that_mentions_the_words_is_left_alone():
    prose = [UserMessage("Observation:\nthe sky is blue"), AssistantMessage("Calling tools:\nnot a list"),
             UserMessage("Observation:\nok")]
    assert read_text_turns(prose) == prose


def scenario_model() -> ScenarioModel:
    model = ScenarioModel(find("repeat-exact-cooperative"), "openai-chat")
    model.outputs = ToolOutputs()
    model.outputs.record("get_order_status", {"order_id": "A1234"}, OWN)
    return model


def test_a_books_reaction_hears_a_replaced_observation_and_not_the_tools_own():
    tools = [ToolSpec("get_order_status")]
    kept = scenario_model().complete(smolagents_turns("Observation:\n" + OWN), tools)
    replaced = scenario_model().complete(smolagents_turns("Observation:\nThis call repeats an earlier one."), tools)
    assert kept.tool_calls and kept.tool_calls[0].name == "get_order_status"  # the script goes on
    assert not replaced.tool_calls and "in transit" in replaced.text  # the cooperative model changes course
