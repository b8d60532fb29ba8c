"""The kit's guard inside each framework hears what that framework really does: the calls of one model
message as one turn, a tool's exception as a failure, a stop before the next model request.

The first tests need no framework (the guard's entry point, and smolagents' module, which imports none);
the ones marked `bench` run in the framework's own venv (`pytest -m bench`), as `loopkit bench` does.
"""
import json
import subprocess
from types import SimpleNamespace

import pytest

from reference.bench.frameworks import FRAMEWORKS, ROOT, ensure_venv, python_of
from reference.bench.inside.smolagents import guarded_tool, hear_model_turns
from reference.bench.kitguard import KitGuard
from reference.bench.run import QUIET_ENV, run_one
from reference.sim.scenario.loading import find

ORDER = [{"name": "get_order", "description": "An order's status.",
          "parameters": {"type": "object", "properties": {"order_id": {"type": "string"},
                                                          "verbose": {"type": "boolean"}},
                         "required": ["order_id"]}}]
SHIPPED = json.dumps({"ok": True, "data": {"status": "shipped"}})


def test_a_hook_without_ids_claims_each_call_of_the_message_once_by_name_and_arguments():
    guard = KitGuard(ORDER, user="Where are my orders A1 and B2?")
    guard.model_turn([("c1", "get_order", '{"order_id": "A1"}'), ("c2", "get_order", {"order_id": "A1"}),
                      ("c3", "get_order", '{"order_id": "B2", "verbose": null}')])
    assert guard.claim("get_order", {"order_id": "B2"}) == "c3"  # values compared, absent optionals ignored
    assert [guard.claim("get_order", '{"order_id": "A1"}') for _ in range(3)] == ["c1", "c2", None]
    assert guard.claim("get_weather", {"order_id": "A1"}) is None  # another tool's call is not this one


def test_the_same_call_asked_about_twice_gets_the_same_answer():
    guard = KitGuard(ORDER, user="Where is my order A1?")
    first = guard.before("c1", "get_order", {"order_id": "A1"})
    assert guard.before("c1", "get_order", {"order_id": "A1"}) == first  # a framework's second check of one call
    assert first.action == "run" and guard.events == []


class Tool:
    """What guarded_tool needs of a smolagents Tool: a name and a forward that runs it."""

    def __init__(self):
        self.name, self.ran = "get_order", []

    def forward(self, *args, **kwargs):
        self.ran.append(args or kwargs)
        return SHIPPED


class Agent:
    """What hear_model_turns needs of a ToolCallingAgent: process_tool_calls, which runs a message's calls."""

    def __init__(self, tool):
        self.tool = tool

    def process_tool_calls(self, chat_message, memory_step):
        for call in chat_message.tool_calls:
            yield self.tool.forward(**call.function.arguments)


def message(*calls):
    return SimpleNamespace(tool_calls=[SimpleNamespace(id=i, function=SimpleNamespace(name="get_order", arguments=a))
                                       for i, a in calls])


def test_smolagents_one_model_message_is_one_turn_so_a_duplicate_in_it_is_no_stop():
    guard, tool = KitGuard(ORDER, user="Where is my order A1?"), Tool()
    agent = hear_model_turns(Agent(guarded_tool(tool, guard)), guard)
    said = list(agent.process_tool_calls(message(("m1", {"order_id": "A1"}), ("m2", {"order_id": "A1"}),
                                                 ("m3", {"order_id": "A1"})), None))
    assert len(tool.ran) == 1 and said[0] == SHIPPED
    assert all(json.loads(s)["pattern"] == "repeated_call" for s in said[1:])  # answered, not run
    assert guard.stopping is None  # one lapse in one turn: the model has not yet read the warning


def test_smolagents_arguments_that_are_not_json_reach_the_guard_as_sent():
    guard, tool = KitGuard(ORDER, user="Where are my orders A1 and B2?"), Tool()
    wrapped = guarded_tool(tool, guard)
    wrapped.forward("order A1, please")  # smolagents passes a non-JSON argument string positionally
    wrapped.forward("order B2, please")
    assert tool.ran == [("order A1, please",), ("order B2, please",)]  # two different calls, both run


def in_venv(name: str, code: str) -> str:
    """Run code in a framework's venv (with the kit installed there, as for its +kit-guard row)."""
    python = ensure_venv(FRAMEWORKS[name])
    done = subprocess.run([str(python_of(FRAMEWORKS[name])), "-I", "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=QUIET_ENV | {"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert python.exists()
    return done.stdout.strip().splitlines()[-1]


STOPPED = ("from reference.bench.kitguard import KitGuard, Decision\n"
           f"guard = KitGuard({ORDER!r}, user='Where is my order A1?')\n"
           "guard.stopping = Decision('stop', None, 'same_result', 'the same answer again')\n")


@pytest.mark.bench
def test_crewai_ends_a_stopped_run_with_its_own_deliberate_stop_not_a_retried_error():
    out = in_venv("crewai+kit-guard", STOPPED + (
        "import reference.bench.inside.crewai as inside\n"
        "hooks = []\n"
        "inside.register_before_tool_call_hook = inside.register_after_tool_call_hook = lambda hook: None\n"
        "inside.register_before_llm_call_hook = hooks.append\n"
        "inside.install(guard)\n"
        "from crewai.hooks.dispatch import HookAborted\n"
        "try:\n    hooks[0](None)\nexcept HookAborted as stop:\n    print('HookAborted', stop.reason)\n"))
    assert out == "HookAborted kit guard: same_result"


@pytest.mark.bench
def test_langchain_ends_a_stopped_run_on_an_ai_message_that_says_why():
    out = in_venv("langgraph+kit-guard", STOPPED + (
        "from reference.bench.inside.langchain import KitGuardMiddleware\n"
        "said = KitGuardMiddleware(guard).before_model({'messages': []}, None)\n"
        "print(said['jump_to'], type(said['messages'][-1]).__name__, said['messages'][-1].content)\n"))
    assert out.startswith("end AIMessage Stopped by the loop guard (same_result)")


@pytest.mark.bench
@pytest.mark.parametrize("name", ["smolagents", "crewai"])
def test_a_duplicate_inside_one_model_message_is_answered_and_the_run_goes_on(name):
    outcome = run_one(FRAMEWORKS[name + "+kit-guard"], find("turn-duplicate-cooperative"), timeout=300)
    assert (outcome.stop, outcome.done, outcome.model_calls, outcome.tool_calls) == ("answered", True, 2, 1)


@pytest.mark.bench
@pytest.mark.parametrize("name", ["openai-agents", "crewai"])
def test_a_tool_that_raised_reaches_the_guard_so_a_retry_after_a_timeout_runs(name):
    outcome = run_one(FRAMEWORKS[name + "+kit-guard"], find("retry-is-not-a-loop"), timeout=300)
    assert (outcome.interventions, outcome.tool_calls) == (0, 2)


@pytest.mark.bench
@pytest.mark.parametrize("name", ["openai-agents", "pydantic-ai", "langgraph"])
def test_a_stop_decided_after_a_result_sends_no_further_model_request(name):
    outcome = run_one(FRAMEWORKS[name + "+kit-guard"], find("same-result-stubborn"), timeout=300)
    assert (outcome.stop, outcome.model_calls) == ("kit guard: same_result", 3)
