"""The reference loops, by the stable names that `loopkit run --loop NAME` accepts: each loop with\nits parts assembled."""
from __future__ import annotations

from typing import Callable

from ..core.errors import ProviderError
from ..core.result import RunResult, StopReason
from ..design.runtime import ChecklistRuntime
from ..harness.episode import Episode
from ..loops.guarded import guarded_loop
from ..loops.hooks import Parts
from ..loops.react import react_loop
from ..parts.budget import RunBudget
from ..parts.degrade import Degrader
from ..parts.executor import ResilientExecutor
from ..parts.guards import LoopGuard

Loop = Callable[..., RunResult]


def full_parts(episode: Episode) -> Parts:
    """Every part of lessons 2-5, configured for the episode's scenario and intent."""
    budget = RunBudget.for_episode(episode, final_answer_share=0.25)  # a quarter kept for the last answer
    return Parts(budget=budget, guard=LoopGuard.for_episode(episode), degrade=Degrader(budget=budget),
                 executor=ResilientExecutor.for_episode(episode, max_seconds=budget.max_seconds,  # one time limit
                                                     budget=budget))  # and one budget for oversized results


def guarded(episode: Episode, max_steps: int = 8) -> RunResult:
    """The guarded loop with every part switched on; the tighter of the two step limits applies."""
    parts = full_parts(episode)
    return guarded_loop(episode, min(max_steps, parts.budget.max_steps or max_steps), parts)


def designed(episode: Episode, max_steps: int = 8) -> RunResult:
    """Lesson 7: the intent's tools only, slots settled in code, the checklist kept by the runtime and
    ending the run; every part of lessons 2-5 stays, the guard as the last line."""
    parts = full_parts(episode)
    parts.executor = runtime = ChecklistRuntime.for_episode(episode, parts.executor)
    if runtime.route.question is not None:  # an unsure router with nothing safe to offer asks, runs nothing
        episode.trace.event("design", action="clarify", question=runtime.route.question)
        return episode.finish(StopReason.COMPLETED, episode.initial_messages(), answer=runtime.route.question,
                              detail="the router was not sure of the intent: a clarifying question")
    return guarded_loop(episode, min(max_steps, parts.budget.max_steps or max_steps), parts)


LOOPS: dict[str, tuple[Loop, str]] = {
    "react": (react_loop, "lesson 1: the 20-line ReAct loop (final answer or step limit)"),
    "guarded": (guarded, "lessons 2-5: budgets, fingerprint guards, degraded outputs, resilient tools"),
    "designed": (designed, "lesson 7: intent router, slots settled in code, a runtime checklist; the guard last"),
}


def get_loop(name: str) -> Loop:
    if name not in LOOPS:
        raise KeyError(f"no loop named {name!r}; choose one of: {', '.join(LOOPS)}")
    return LOOPS[name][0]


def run_loop(name: str, episode: Episode) -> RunResult:
    """Run the named loop on the episode. A provider failure the loop let escape (the lesson-1 loop has no
    handler for a 429 or a 529) is the run's outcome, not the caller's crash: it ends as `error`."""
    episode.loop_name = name
    try:
        return get_loop(name)(episode, max_steps=episode.limits.max_steps)
    except ProviderError as exc:
        sent = episode.scripted.requests if episode.scripted else []
        messages = list(sent[-1].messages) if sent else episode.initial_messages()
        return episode.finish(StopReason.ERROR, messages, detail=f"the loop crashed: {type(exc).__name__} ({exc})")
