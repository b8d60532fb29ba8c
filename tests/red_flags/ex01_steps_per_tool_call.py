"""Red flag (written blind, from the exercise docstring alone): a 'step' counted per tool call, so turns with parallel calls use up the limit early."""
from __future__ import annotations

from reference import Episode, RunResult, StopReason  # noqa: F401  (you will need them)


def react_loop(episode: Episode, max_steps: int = 8) -> RunResult:
    # MISTAKE: the step counter advances once per tool call, not once per model request
    messages = episode.initial_messages()
    steps = 0
    while steps < max_steps:
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            steps += 1
            reply = episode.user_reply()
            if reply is None:
                return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
            messages.append(reply)
        for call in turn.tool_calls:
            steps += 1
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages, detail=f"stopped after {max_steps} steps without an answer")
