"""Candidate template, kind `kit`: a loop on the kit's own API (lesson 1), `loop(episode, max_steps)`.

The episode gives the first messages, the model (`episode.model.complete(messages, tools)` -> Turn) and
the tools (`episode.tools.execute(call)` -> ToolMessage, never raises; `episode.tools.invoke(name, args)`
raises as real tools do). Return `episode.finish(stop_reason, messages, answer=..., degraded=...)`.
Grade it: `loopkit grade docs/candidates/kit_api.py`.

Expert score: 60. Why: the bare loop: the pass line.
"""
from reference import StopReason


def loop(episode, max_steps=8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages, detail=f"stopped after {max_steps} steps")
