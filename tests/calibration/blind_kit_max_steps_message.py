"""Kit loop: a generous step cap and a plain message when it runs out.

Expert score: 52. Why: (1) skeleton right: one model.complete per step, the executor runs every call, a turn with no tool calls finishes; (2) history right: the turn is appended before one tool message per call id; (3) exits: completed and max_steps only, every failure scenario ends at the cap; (4) the cap (25, "what we always use") is the only brake: no token, time or cost gate, so a run whose context keeps growing overshoots; (5) no loop detection, a repeating model burns all 25 steps; (6) the kit's execute() keeps exceptions inside and returns them as results, but the candidate adds no retry policy or classification of their own; (7) at the cap the user is told "Maximum number of steps reached" and nothing the tools found (red flag, -10); (8) no trace; (9) native tool calls.
"""
from reference import StopReason

MAX_ITERATIONS = 25  # what we always use


def loop(episode, max_steps=MAX_ITERATIONS):
    messages = episode.initial_messages()
    tools = episode.tools.specs
    i = 0
    while i < MAX_ITERATIONS:
        i += 1
        turn = episode.model.complete(messages, tools)
        messages.append(turn.message)
        if turn.tool_calls:
            messages.extend(episode.tools.execute(c) for c in turn.tool_calls)
            continue
        return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
    return episode.finish(StopReason.MAX_STEPS, messages,
                          answer="Maximum number of steps reached. Please try again.")
