"""Kit loop: step cap, wall-clock limit, and "same as last time" detection.

Expert score: 68. Why: (1) skeleton right: one complete() per step, executor runs the calls, a turn without calls ends the run; (2) history right: turn appended, then the executor's tool message for each call id; (3) exits: completed, max_steps, time_budget, repeated_call (resource and abnormal both present); (4) only a wall-clock limit beside the step cap: no token or cost gate, so a run whose context balloons is not stopped by size; (5) compares each call only with the one just before it (raw repr of the arguments, no normalisation) and stops at once with no intervention: a spaced-out or A-B-A-B repeat slips through and a cooperative model gets no second chance; it does require the same result too, so polling survives; (6) the kit's execute() keeps exceptions inside, nothing of the candidate's own for retries or error wording; (7) at a limit, the answer lists the last results, what was not finished and a next step; (8) prints one line per step; (9) native tool calls.
"""
import time

from reference import StopReason

WALL_CLOCK_S = 20


def loop(episode, max_steps=8):
    msgs = episode.initial_messages()
    began = time.time()
    prev = None          # (call signature, result text) of the previous call
    results = []

    def end_early(why, label):
        tail = results[-3:]
        text = (f"I stopped early: {label}. Results so far: " + (" | ".join(tail) if tail else "none")
                + ". The request is not fully answered; please narrow it down or contact support.")
        return episode.finish(why, msgs, answer=text,
                              degraded={"obtained": tail, "unfinished": ["full answer"],
                                        "next_steps": ["narrow the request", "contact support"]})

    for step in range(max_steps):
        if time.time() - began > WALL_CLOCK_S:
            return end_early(StopReason.TIME_BUDGET, "time limit")
        turn = episode.model.complete(msgs, episode.tools.specs)
        msgs.append(turn.message)
        print(f"step {step}: {len(turn.tool_calls or [])} tool call(s)")
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, msgs, answer=turn.text)
        for c in turn.tool_calls:
            tool_msg = episode.tools.execute(c)
            msgs.append(tool_msg)
            content = str(getattr(tool_msg, "content", tool_msg))
            results.append(content[:200])
            sig = (getattr(c, "name", None), repr(getattr(c, "arguments", None)))
            if prev == (sig, content):
                return end_early(StopReason.REPEATED_CALL, "the same call kept returning the same thing")
            prev = (sig, content)
    return end_early(StopReason.MAX_STEPS, f"{max_steps} steps used")
