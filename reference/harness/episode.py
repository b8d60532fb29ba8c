"""One run of a scenario: the model, the tools, the clock and the meters, ready for a loop.

    episode = Episode.from_scenario(find("happy-path"))
    result = react_loop(episode, max_steps=episode.limits.max_steps)

The loop asks the episode for its first messages, talks to `episode.model` and `episode.tools`, and
hands back a `RunResult` through `episode.finish(...)`; the episode fills in the usage, cost and time
it metered.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from ..sim.clock import SimClock
from .ledger import Ledger, MeteredModel
from .trace import Trace
from ..core.messages import Message, SystemMessage, ToolSpec, UserMessage
from ..sim import tokens
from ..wire.incremental import WireBuilder
from ..core.model import Model, Pricing
from ..wire.protocol import WIRE_FORMATS
from ..core.result import RunResult, StopReason
from ..core.errors import ScenarioError
from ..sim.scenario.schema import LimitsDef, Scenario
from ..sim.scripted import ScriptedModel
from ..sim.tools import FakeTool, Toolbox


@dataclass
class Episode:
    scenario: Scenario
    clock: SimClock
    ledger: Ledger
    model: MeteredModel
    tools: Toolbox
    loop_name: str = "custom"
    _counter: Optional[WireBuilder] = field(default=None, init=False, repr=False, compare=False)
    max_steps: int | None = None  # the step limit the loop runs under (the loop sets it): a final answer
    #                               is one of those steps, never one more
    cancelled_at: float | None = None  # when the user pressed stop (simulated seconds), once they have
    user_turns_said: int = 0  # how many of the scenario's `user_turns` the user has said so far

    @classmethod
    def from_scenario(cls, scenario: Scenario, *, seed: int | None = None, model: Model | None = None,
                      wire: str | None = None, trace: Trace | None = None, label: str | None = None) -> "Episode":
        """`wire` replays the scenario in another wire format (openai-chat, openai-responses, anthropic);
        `trace` records the run somewhere of your choosing (a file, content capture), else in memory; `label`
        seeds the ids the scripted model gives its calls (by default the scenario's name)."""
        if wire is not None:
            if wire not in WIRE_FORMATS:
                raise ValueError(f"unknown wire format {wire!r}; expected one of {', '.join(WIRE_FORMATS)}")
            if wire not in scenario.wires:
                raise ScenarioError(f"{scenario.name}: cannot be replayed as {wire}: "
                                    f"{', '.join(scenario.object_free_arguments())} are not JSON objects, "
                                    "and that wire format always carries tool input as an object")
            scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
        clock = SimClock.at(scenario.clock)
        pricing = Pricing(scenario.model.pricing.input_per_mtok, scenario.model.pricing.output_per_mtok)
        ledger = Ledger(clock, pricing, trace=trace if trace is not None else Trace())
        ledger.trace.start(scenario, clock, seed)
        inner = model if model is not None else ScriptedModel(scenario.model, clock, seed=seed,
                                                                         label=label or scenario.name)
        specs = [ToolSpec(t.name, t.description, t.parameters) for t in scenario.tools]
        toolbox = Toolbox({t.name: FakeTool(t, clock) for t in scenario.tools}, specs, clock, ledger)
        if isinstance(inner, ScriptedModel):
            inner.outputs = toolbox.outputs  # a cooperative model reads what the tools really returned
        return cls(scenario, clock, ledger, MeteredModel(inner, ledger), toolbox)

    @property
    def limits(self) -> LimitsDef:
        return self.scenario.limits

    @property
    def trace(self) -> Trace:
        """The run's trace (lesson 6): parts add their events with `episode.trace.event(kind, **fields)`."""
        return self.ledger.trace

    @property
    def scripted(self) -> ScriptedModel | None:
        inner = self.model.inner
        return inner if isinstance(inner, ScriptedModel) else None

    def request_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """The input tokens of this request in the scenario's wire format, as the provider bills them
        (`tokens.request_tokens` over `to_wire`), counting only what is new since the last call."""
        wire = self.scenario.model.wire
        if self._counter is None or self._counter.wire != wire:
            self._counter = tokens.counter(wire)
        return tokens.built_tokens(self._counter.build(messages, tools))

    # -- the user's stop button (lesson 4's cancel exit) ------------------------------------------
    def cancel(self) -> None:
        """The user pressed stop (a UI's interrupt button calls this). Honoured at the loop's next check."""
        if self.cancelled_at is None:
            self.cancelled_at = self.clock.elapsed

    def cancel_requested(self, between_steps: bool = True) -> bool:
        """Has the user pressed stop? Also plays the scenario's scripted `cancel`: at a simulated second, or
        after a step (a model request and its tool calls: seen only `between_steps`)."""
        plan = self.scenario.cancel
        if self.cancelled_at is None and plan is not None:
            if (plan.at_seconds is not None and self.clock.elapsed >= plan.at_seconds) or (
                    between_steps and plan.after_step is not None and len(self.ledger.steps) >= plan.after_step):
                self.cancelled_at = self.clock.elapsed if plan.at_seconds is None else plan.at_seconds
        return self.cancelled_at is not None

    def wait(self, seconds: float) -> bool:
        """Sleep on the simulated clock, as a retry's backoff does; a press of stop during the wait ends it
        there. True if the whole wait passed, False if the user cancelled (the clock stops at the press)."""
        plan = self.scenario.cancel
        due = plan.at_seconds if plan is not None and plan.at_seconds is not None else None
        if self.cancel_requested(between_steps=False):
            return False
        if due is not None and self.clock.elapsed + seconds >= due:
            self.clock.sleep(max(0.0, due - self.clock.elapsed))
            return not self.cancel_requested(between_steps=False)
        self.clock.sleep(seconds)
        return True

    def initial_messages(self) -> list[Message]:
        return [SystemMessage(self.scenario.system), UserMessage(self.scenario.user)]

    def user_reply(self) -> UserMessage | None:
        """The user's next turn, asked for when the model has answered without tool calls: in a conversation
        (the scenario's `user_turns`) the user replies and the run goes on; None when the answer is final."""
        if self.user_turns_said >= len(self.scenario.user_turns):
            return None
        text = self.scenario.user_turns[self.user_turns_said].text
        self.user_turns_said += 1
        self.trace.on_user_turn(text)
        return UserMessage(text)

    def finish(self, stop_reason: StopReason, messages: list[Message], answer: str | None = None,
               degraded: Any = None, detail: str | None = None) -> RunResult:
        result = RunResult(
            scenario=self.scenario.name, loop=self.loop_name, stop_reason=StopReason(stop_reason), answer=answer,
            messages=list(messages), usage=self.ledger.usage, cost_usd=self.ledger.cost_usd,
            sim_seconds=self.clock.elapsed, steps=list(self.ledger.steps), degraded=degraded, detail=detail)
        self.trace.finish(result)
        return result
