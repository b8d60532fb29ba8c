"""Red flag: calls the tool directly, so one exception (or malformed JSON) kills the whole agent."""
import json

from reference import StopReason, ToolMessage


def react_loop(episode, max_steps=8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            outcome = episode.tools.invoke(call.name, json.loads(call.arguments), call.id)
            messages.append(ToolMessage(call.id, outcome.to_content(), not outcome.ok))
    return episode.finish(StopReason.MAX_STEPS, messages)
