"""Candidate template, kind `openai-responses`: a loop on the `openai` SDK's Responses API.

The grader hands in `client` (an `openai.OpenAI` served by the scripted model), `run_tool(name, args)
-> str` and `tools` in Responses form. The server keeps no state: send the whole input every time
(no previous_response_id). Grade it: `loopkit grade docs/candidates/openai_responses.py`.

Expert score: 60. Why: the bare loop: the pass line.
"""
import json

import openai  # noqa: F401


def agent(client, run_tool, user_message, tools):
    items = [{"role": "user", "content": user_message}]
    for _ in range(8):
        response = client.responses.create(model="gpt-5.4-mini", input=items, tools=tools)
        calls = [item for item in response.output if item.type == "function_call"]
        items += [item.model_dump(exclude_none=True) for item in response.output]
        if not calls:
            return response.output_text
        for call in calls:
            try:
                result = run_tool(call.name, json.loads(call.arguments))
            except Exception as exc:
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            items.append({"type": "function_call_output", "call_id": call.call_id, "output": result})
    return None
