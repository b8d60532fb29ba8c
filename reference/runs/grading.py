"""Run somebody's loop (a learner's exercise, a candidate's whiteboard code) on a scenario, safely.

The loop under test may never stop, may break the protocol or may crash; the grader turns each of
those into a finding with a story ("scenario `repeat-exact`: your loop made 28 model calls; the step
limit was 8") instead of a hung test or a bare traceback.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..harness.episode import Episode
from ..core.messages import Message, ToolSpec
from ..core.model import Turn
from ..core.errors import ProtocolError, RunawayLoop
from ..core.result import RunResult
from ..sim.scenario.loading import find
from ..sim.scenario.schema import Scenario


class CappedModel:
    """Passes requests through until `cap` of them, then stops the runaway loop."""

    def __init__(self, inner: Any, cap: int):
        self.inner = inner
        self.cap = cap
        self.calls = 0

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        self.calls += 1
        if self.calls > self.cap:
            raise RunawayLoop(f"more than {self.cap} model calls")
        return self.inner.complete(messages, tools, tool_choice=tool_choice)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copy, pickle): no wrapped model to ask
            raise AttributeError(name)
        return getattr(self.inner, name)


@dataclass
class CandidateRun:
    scenario: Scenario
    max_steps: int
    result: RunResult | None = None
    error: BaseException | None = None
    episode: Episode | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def model_calls(self) -> int:
        return len(self.episode.ledger.steps) if self.episode else 0

    def story(self) -> str:
        name = f"scenario `{self.scenario.name}`"
        if isinstance(self.error, RunawayLoop):
            return (f"{name}: your loop made {self.model_calls} model calls and was still going; "
                    f"the step limit was {self.max_steps}")
        if isinstance(self.error, ProtocolError):
            return (f"{name}: request {self.model_calls + 1} was refused by the API (HTTP 400, "
                    f"{self.error.wire}): {self.error.message}")
        if self.error is not None:
            return f"{name}: your loop raised {type(self.error).__name__}: {self.error}"
        assert self.result is not None
        return (f"{name}: stop reason {self.result.stop_reason.value}, {self.result.model_calls} model calls "
                f"(step limit {self.max_steps}), {self.result.tool_calls} tool calls")


def run_candidate(loop: Callable[..., RunResult], scenario: Scenario | str, max_steps: int | None = None, *,
                  wire: str | None = None, seed: int | None = None, runaway_margin: int = 20) -> CandidateRun:
    """Run `loop(episode, max_steps=...)` on a scenario; never raises for what the loop does."""
    if isinstance(scenario, str):
        scenario = find(scenario)
    steps = max_steps if max_steps is not None else scenario.limits.max_steps
    episode = Episode.from_scenario(scenario, seed=seed, wire=wire)
    episode.model.inner = CappedModel(episode.model.inner, steps + runaway_margin)
    episode.loop_name = getattr(loop, "__name__", "candidate")
    attempt = CandidateRun(scenario, steps, episode=episode)
    try:
        result = loop(episode, max_steps=steps)
    except Exception as exc:  # the grader reports, it does not crash
        attempt.error = exc
        return attempt
    if not isinstance(result, RunResult):
        attempt.error = TypeError(f"the loop returned {type(result).__name__} ({result!r:.80}), not a RunResult "
                                  "from episode.finish(...)")
        return attempt
    attempt.result = result
    return attempt
