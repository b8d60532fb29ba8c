"""Chat Completions loop that keeps the model "thinking" for a fixed number of rounds.

Expert score: 30. Why: (1) skeleton wrong: a reply without tool calls does not end the loop, the model is asked again ("are you sure that is complete?") until the fixed 6 rounds are used, so the step cap is the only exit (red flag, -10) and it asks the model whether the task is done (red flag, -10) and every finished task costs six requests; (2) history is protocol-valid: assistant turn with tool_calls, one tool message per id, then a user nudge; (3) one exit kind: the round count; (4) no budgets; (5) no loop detection; (6) tool exceptions caught and reduced to a short generic line (no trace, no secret) but nothing retried or made actionable; (7) returns the last text the model produced, which at a limit is whatever it last said, nothing structured; (8) no trace; (9) native tool calls.
"""
import json

import openai  # noqa: F401

ROUNDS = 6


def agent(client, run_tool, user_message, tools):
    chat = [{"role": "system", "content": "Work step by step. Use tools when useful."},
            {"role": "user", "content": user_message}]
    best_answer = ""
    for _round in range(ROUNDS):
        completion = client.chat.completions.create(model="gpt-5.4-mini", messages=chat, tools=tools)
        m = completion.choices[0].message
        chat.append(m.model_dump(exclude_none=True))
        if m.content:
            best_answer = m.content          # keep the latest thing it said
        if m.tool_calls:
            for call in m.tool_calls:
                try:
                    res = run_tool(call.function.name, json.loads(call.function.arguments))
                except Exception:
                    res = "Tool failed."
                chat.append({"role": "tool", "tool_call_id": call.id, "content": res})
        else:
            # give it a chance to double-check its work before we hand it back
            chat.append({"role": "user", "content": "Are you sure that is complete? Continue if anything is missing."})
    return best_answer
