"""Red flag: runs only the first tool call of a turn (parallel calls left unanswered)."""
from reference import StopReason


def react_loop(episode, max_steps=8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        messages.append(episode.tools.execute(turn.tool_calls[0]))
    return episode.finish(StopReason.MAX_STEPS, messages)
