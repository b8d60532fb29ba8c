"""A scenario's scripted model with no memory of its clients: each request replays its own history.

`ScenarioModel.complete(messages, tools)` starts a fresh `ScriptedModel` and plays it through the
conversation the request carries: once for each assistant turn already in it (so the script position,
the reactions that fired and the seeded policy are what that conversation made them), then once for
the answer. Eight clients on one scenario therefore never disturb each other, and a client that
retries, forks or restarts a conversation gets what that conversation calls for.

A scripted provider failure (a `fault:` step: 429, 500, 529, a timeout) is answered as the service
would answer it, and what gets past it is a retry: the same request again, which the SDKs mark with
`x-stainless-retry-count`. So a request that is retry number n has n faults behind it, and a past turn
that met a fault on its way was retried until it got its answer.

The price is a replay per request that grows with the conversation (a run of N turns costs about
N²/2 scripted turns in all): nothing for the catalogue's scenarios, a little for a runaway loop.

A client whose loop only ends through a tool named `final_answer` (smolagents' ToolCallingAgent, which
also sends tool_choice "required") would never see the script's text answer end its run; so when a
request declares that tool, the script's answer comes as a `final_answer` call with `{"answer": text}`.
Replayed, that call is the script's answer step again (it is a turn with tool calls: asked with "auto").
smolagents also sends its past tool calls back as assistant text ("Calling tools:\n[...]") and their
results as user text ("Observation:\n..."): those turns are read back as the tool calls and tool
results they were (serve/text_turns.py), so reactions hear smolagents' results as any client's.
"""
from __future__ import annotations

import hashlib
import json
import threading
from typing import Sequence

from ..core.errors import ProviderError
from ..core.messages import AssistantMessage, Message, ToolCall, ToolSpec
from ..core.model import Turn
from ..sim.clock import SimClock
from ..sim.scenario.schema import Scenario
from ..sim.scenario.schema_script import ModelDef, StepDef
from ..sim.books import ToolOutputs
from ..sim.scripted import ScriptedModel
from ..wire.formats import wire_format
from .text_turns import read_text_turns


class ScenarioModel:
    """The kit's `Model` for one scenario on one wire format, replayed per request."""

    def __init__(self, scenario: Scenario, wire: str, *, seed: int | None = None):
        self.scenario = scenario
        self.spec = scenario.model.model_copy(update={"wire": wire})  # call ids in the wire's own style
        self.seed = seed
        self.clock = SimClock.at(scenario.clock)  # the `created` time of every answer: the scenario's start
        self.outputs: ToolOutputs | None = None  # books of what the tools returned, where this process runs them
        self.attempt = threading.local()  # `.retries`: which retry of its request this one is (set per request);
        # `.usage`: the usage of the answer this thread gave last (the books count it, streamed or not)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        messages = read_text_turns(messages)
        model = ScriptedModel(self.spec, SimClock.at(self.scenario.clock), seed=self.seed, label=self.scenario.name,
                              outputs=self.outputs)
        for end, message in enumerate(messages):
            if isinstance(message, AssistantMessage):  # the turn that answered messages[:end], played again
                for _ in range(len(model.plan) + 1):  # the faults met on its way were retried
                    try:
                        model.complete(messages[:end], tools, tool_choice=_asked(model, message))
                        break
                    except ProviderError:
                        continue
        self.attempt.usage = None
        for _ in range(getattr(self.attempt, "retries", 0)):  # this request's earlier attempts met these faults
            try:
                return self._answered(model.complete(messages, tools, tool_choice=tool_choice), messages, tools, tool_choice)
            except ProviderError:
                continue
        return self._answered(model.complete(messages, tools, tool_choice=tool_choice), messages, tools, tool_choice)

    def _answered(self, turn: Turn, messages: Sequence[Message], tools: Sequence[ToolSpec], tool_choice: str) -> Turn:
        self.attempt.usage = turn.usage
        if (turn.tool_calls or turn.text is None or tool_choice == "none"  # "none": the client wants text
                or FINAL_ANSWER not in {tool.name for tool in tools}):
            return turn
        call = ToolCall(self._call_id(messages), FINAL_ANSWER, json.dumps({"answer": turn.text}, ensure_ascii=False))
        return Turn(None, (call,), "tool_calls", turn.usage)

    def _call_id(self, messages: Sequence[Message]) -> str:
        """A call id in the wire's style, the same for the same conversation (the script's own ids are not drawn)."""
        digest = hashlib.sha256(f"{self.scenario.name}:{self.seed}:{len(messages)}".encode()).hexdigest()
        prefix = wire_format(self.spec.wire).call_id_prefix
        return prefix + digest[:30 - len(prefix)]


CALLS_AS_TEXT = "Calling tools:\n"  # smolagents/memory.py: ActionStep.to_messages renders its tool calls so
FINAL_ANSWER = "final_answer"  # smolagents' answer tool: `inputs = {"answer": ...}` (smolagents/default_tools.py)


def _asked(model: ScriptedModel, turn: AssistantMessage) -> str:
    """The tool_choice a past turn must have been asked with: a text answer where the script had tool
    calls next came from tool_choice "none" (which leaves the script where it was), unless it is tool
    calls written out as text (smolagents sends its past calls so: "Calling tools:\n[...]")."""
    if turn.tool_calls or CALLS_AS_TEXT in (turn.text or ""):
        return "auto"
    upcoming = model.plan[model.position] if model.position < len(model.plan) else None
    return "auto" if upcoming is not None and upcoming.answer is not None else "none"


def scripted_tools(spec: ModelDef) -> list[str]:
    """Every tool the script may call (steps, cycle, reactions), in order of first mention."""
    steps: list[StepDef] = list(spec.script) + list(spec.cycle)
    for reaction in spec.reactions:
        steps += list(reaction.then) + list(reaction.cycle)
    return list(dict.fromkeys(call.tool for step in steps for call in step.tool_calls))
