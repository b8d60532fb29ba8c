"""The bare loop on the kit's API with an exact fingerprint (tool name plus sorted arguments) that stops
the run the first time a call repeats: no intervention first, nothing for the user at the stop.

Expert score: 45. Why: the bare loop right (60); a guard exit (3); it stops a stubborn repeat at once but
a cooperative model never gets its warning, and it also stops legitimate polling of a changing status (a
red flag, -10); the user gets nothing at any stop (a red flag, -10).
"""
import json

from reference import StopReason


def loop(episode, max_steps=8):
    messages = episode.initial_messages()
    seen = set()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            try:
                key = (call.name, json.dumps(json.loads(call.arguments), sort_keys=True))
            except ValueError:
                key = (call.name, call.arguments)
            if key in seen:
                return episode.finish(StopReason.REPEATED_CALL, messages[:-1])
            seen.add(key)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
