"""The reference loops, by the stable names that `loopkit run --loop NAME` accepts."""
from __future__ import annotations

from typing import Callable

from ..episode import Episode
from ..result import RunResult
from .react import react_loop

Loop = Callable[..., RunResult]

LOOPS: dict[str, tuple[Loop, str]] = {
    "react": (react_loop, "lesson 1: the 20-line ReAct loop (final answer or step limit)"),
}


def get_loop(name: str) -> Loop:
    if name not in LOOPS:
        raise KeyError(f"no loop named {name!r}; choose one of: {', '.join(LOOPS)}")
    return LOOPS[name][0]


def run_loop(name: str, episode: Episode) -> RunResult:
    episode.loop_name = name
    return get_loop(name)(episode, max_steps=episode.limits.max_steps)
