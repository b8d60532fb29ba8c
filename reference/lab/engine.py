"""The Loop Lab's logic: one configuration (scenario, loop, parts on or off, limits, wire) in, one run out.

    run = run_config(LabConfig("repeat-exact", guard=True, max_steps=8))
    run.stop_reason, run.timeline, run.cumulative_tokens, run.answer

Everything the widgets show is computed here, so that tests can set values and read the outputs
without a browser. The loop is the guarded loop with the chosen parts; with every part off it is the
lesson-1 loop in all but name (the guarded loop with no hooks does what react_loop does).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..core.errors import ScenarioError
from ..core.result import RunResult
from ..diagnosis.timeline import timeline
from ..harness.episode import Episode
from ..loops.guarded import guarded_loop
from ..loops.hooks import Parts, PlainExecutor
from ..parts.budget import RunBudget
from ..parts.degrade import Degrader
from ..parts.executor import ResilientExecutor
from ..parts.guards import LoopGuard
from ..runs.runner import completed
from ..sim.scenario.loading import catalogue, find
from ..wire.protocol import WIRE_FORMATS

PARTS = ("budget", "guard", "degrade", "executor")
LOOPS = {"react": (), "guarded": PARTS}  # a loop is a preset of parts; the switches then change it


@dataclass(frozen=True)
class LabConfig:
    scenario: str = "repeat-exact"
    budget: bool = False
    guard: bool = False
    degrade: bool = False
    executor: bool = False
    max_steps: int = 8
    token_budget: int | None = None  # None: the scenario's and its intent's tier
    threshold: int = 1  # runs of one action allowed before the guard intervenes
    wire: str = "openai-chat"

    def with_loop(self, loop: str) -> "LabConfig":
        """The parts of a named loop switched on, the others off."""
        return replace(self, **{part: part in LOOPS[loop] for part in PARTS})

    @property
    def parts_on(self) -> list[str]:
        return [part for part in PARTS if getattr(self, part)]


@dataclass
class LabRun:
    config: LabConfig
    result: RunResult | None = None
    problem: str | None = None  # a configuration the scenario cannot run (a wire it cannot be replayed in)
    timeline: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)  # per model request: step, tools, tokens, cost
    completed: bool = False

    @property
    def stop_reason(self) -> str:
        return self.result.stop_reason.value if self.result else "not run"

    @property
    def answer(self) -> str:
        """What the user reads: the answer, the degraded result's text, or nothing."""
        if self.result is None:
            return self.problem or ""
        if self.result.answer:
            return self.result.answer
        return str(self.result.degraded) if self.result.degraded is not None else "(no answer)"

    @property
    def cumulative_tokens(self) -> list[int]:
        return [s["tokens_so_far"] for s in self.steps]

    @property
    def cumulative_cost(self) -> list[float]:
        return [s["cost_so_far"] for s in self.steps]

    def summary(self) -> dict[str, Any]:
        r = self.result
        return {"scenario": self.config.scenario, "parts": ", ".join(self.config.parts_on) or "none",
                "stop_reason": self.stop_reason, "completed": self.completed,
                "model_calls": r.model_calls if r else 0, "tool_calls": r.tool_calls if r else 0,
                "tokens": r.usage.total_tokens if r else 0, "cost_usd": round(r.cost_usd, 6) if r else 0.0}


def scenario_names() -> list[str]:
    return [s.name for s in catalogue()]


def parts_for(config: LabConfig, episode: Episode) -> Parts:
    budget = RunBudget.for_episode(episode, final_answer_share=0.25) if config.budget or config.degrade else None
    if budget is not None and config.token_budget is not None:
        budget.max_run_tokens = config.token_budget
        budget.sources["max_run_tokens"] = "the lab's slider"
    guard = None
    if config.guard:
        kit = LoopGuard.for_episode(episode)
        guard = LoopGuard(kit.tools, replace(kit.thresholds, allowed_runs=max(1, config.threshold)))
    return Parts(budget=budget if config.budget else None, guard=guard,
                 degrade=Degrader(budget=budget) if config.degrade else None,
                 executor=ResilientExecutor.for_episode(episode) if config.executor else PlainExecutor())


def run_config(config: LabConfig) -> LabRun:
    if config.wire not in WIRE_FORMATS:
        return LabRun(config, problem=f"unknown wire format {config.wire!r}")
    try:
        episode = Episode.from_scenario(find(config.scenario), wire=config.wire)
    except ScenarioError as exc:
        return LabRun(config, problem=str(exc))
    episode.loop_name = "lab"
    result = guarded_loop(episode, config.max_steps, parts_for(config, episode))
    steps = [{"step": r["step"], "tools": [c["name"] for c in r["tool_calls"]], "tokens": r["input_tokens"]
              + r["output_tokens"], "tokens_so_far": r["tokens_so_far"], "cost_so_far": r["cost_so_far"]}
             for r in episode.trace.records if r["kind"] == "step"]
    return LabRun(config, result, None, timeline(episode.trace), steps, completed(episode.scenario, result))


def compare(left: LabConfig, right: LabConfig) -> tuple[LabRun, LabRun]:
    return run_config(left), run_config(right)
