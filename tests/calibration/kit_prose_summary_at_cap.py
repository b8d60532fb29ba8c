"""The bare loop on the kit's API, and at the step cap one last request without tools: the model writes
the user what it found so far, in prose.

Expert score: 66. Why: the bare loop right (60); at the limit the user gets a prose summary built from the
tool results (6); the step cap is its only brake, so no budget, no guard and no error handling beyond the
executor's.
"""
from reference import StopReason


def loop(episode, max_steps=8):
    messages = episode.initial_messages()
    for _ in range(max_steps - 1):  # the last step is kept for the summary
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    last = episode.model.complete(messages, episode.tools.specs, tool_choice="none")
    messages.append(last.message)
    return episode.finish(StopReason.MAX_STEPS, messages, answer=last.text)
