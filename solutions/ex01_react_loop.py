"""Exercise 1, solved: the ReAct loop in about 20 lines (the same loop as reference/loops/react.py).

Why each line is there:
- one step is one model request, so the step limit bounds model calls, not tool calls;
- the assistant turn goes into the history before the tool results: the results answer its
  tool-call ids, and the API refuses a result whose call it cannot see;
- every tool call of the turn is answered (models call tools in parallel);
- tools run in code, through `episode.tools.execute`, which never raises into the loop.
"""
from __future__ import annotations

from reference import Episode, RunResult, StopReason


def react_loop(episode: Episode, max_steps: int = 8) -> RunResult:
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
