"""Red flag: a 'step' counted per tool call, with a fresh model request for each one."""
from reference import StopReason


def react_loop(episode, max_steps=8):
    messages = episode.initial_messages()
    steps = 0
    while steps < max_steps:
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
            steps += 1
        # "re-plan" between steps: an extra request whose turn is thrown away
        episode.model.complete(messages, episode.tools.specs)
    return episode.finish(StopReason.MAX_STEPS, messages)
