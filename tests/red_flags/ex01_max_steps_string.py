"""Red flag: at the limit, return the string "max steps reached" instead of a result."""
from reference import StopReason


def react_loop(episode, max_steps=8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return "max steps reached"
