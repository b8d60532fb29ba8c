"""Red flag: only the tool results go into the history, not the assistant turn that asked for them."""
from reference import StopReason


def react_loop(episode, max_steps=8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        if not turn.tool_calls:
            messages.append(turn.message)
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
