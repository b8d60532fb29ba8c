"""A loop whose only exit is the step cap: a reply without tool calls does not end it, the loop asks the
model again until the cap.

Expert score: 20. Why: the history is paired right (30), but the loop never ends on the model's answer
(no skeleton): every legitimate task runs into the cap or the end of the model's script; a red flag (-10).
"""
from reference import StopReason


def loop(episode, max_steps=8):
    messages = episode.initial_messages()
    answer = None
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        answer = turn.text or answer
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages, answer=answer)
