"""Red flag: the history in a mutable default argument (`messages=[]`).

Python evaluates a default once, when the function is defined, so every call shares that one list. Each run
in a fresh process looks right; in a service that runs the loop request after request in one process, the
second conversation starts with the first one's history, and the first user's data goes to the model with
the second user's question.
"""
from reference import StopReason


def react_loop(episode, max_steps=8, messages=[]):  # noqa: B006 (the flaw)
    messages.extend(episode.initial_messages())
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, list(messages), answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, list(messages))
