"""OpenAI Chat Completions agent; keeps the transcript "clean" by storing only the assistant's text.

Expert score: 5. Why: (1) skeleton looks right on paper (one request per step, code runs the tools, a cap of 8) but no tool-using run completes; (2) history broken: the assistant turn is stored as text only, without its tool_calls, so every tool message answers an id the API never saw and the second request is refused with HTTP 400 (red flag, -10), and that BadRequestError is not caught, so the run dies; (3) no exit kind beyond completed/step cap is ever reached; (4) no budgets; (5) no loop detection; (6) tool exceptions are caught with a short generic message, but the model error escapes the loop; (7) the step-cap exit returns a bare string with nothing found; (8) no trace; (9) native tool calls.
"""
import json

import openai  # noqa: F401


def agent(client, run_tool, user_message, tools):
    msgs = [{"role": "user", "content": user_message}]
    for i in range(8):
        out = client.chat.completions.create(model="gpt-5.4-mini", messages=msgs, tools=tools)
        choice = out.choices[0].message
        # keep only what the model said; the tool-call plumbing is noise for the next turn
        msgs.append({"role": "assistant", "content": choice.content or ""})
        if not choice.tool_calls:
            return choice.content
        for tc in choice.tool_calls:
            try:
                value = run_tool(tc.function.name, json.loads(tc.function.arguments))
            except Exception:
                value = "The tool could not be run."
            msgs.append({"role": "tool", "tool_call_id": tc.id, "content": str(value)})
    return "Sorry, I could not finish."
