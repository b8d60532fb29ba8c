"""Exercise 1: write the ReAct loop, in about 20 lines.

The task
    Write `react_loop(episode, max_steps)`: the loop that lets a model call tools until it answers.
    `episode` gives you everything: `episode.initial_messages()` (system + user), `episode.model`
    (`.complete(messages, tools) -> Turn`), `episode.tools` (`.specs` to offer, `.execute(call)` to
    run one call and get its ToolMessage) and `episode.finish(...)` to build the result.

Steps
    1. Start the history with `episode.initial_messages()`.
    2. One step is one model request: `turn = episode.model.complete(messages, episode.tools.specs)`.
    3. Append the assistant turn (`turn.message`, which carries the tool calls) to the history.
    4. No tool calls means a final answer: return
       `episode.finish(StopReason.COMPLETED, messages, answer=turn.text)`.
    5. Otherwise run every tool call of the turn with `episode.tools.execute(call)` and append each
       result.
    6. After `max_steps` steps without an answer, return `episode.finish(StopReason.MAX_STEPS, messages)`.

Check your work with `loopkit check ex01`; ask for a hint with `loopkit hint ex01`.
"""
from __future__ import annotations

from reference import Episode, RunResult, StopReason  # noqa: F401  (you will need them)


def react_loop(episode: Episode, max_steps: int = 8) -> RunResult:
    raise NotImplementedError("Exercise 1: write the loop described above, then run `loopkit check ex01`")
