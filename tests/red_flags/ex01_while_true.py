"""Red flag: `while True` and trust the model to stop."""
from reference import StopReason


def react_loop(episode, max_steps=8):
    messages = episode.initial_messages()
    while True:
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
