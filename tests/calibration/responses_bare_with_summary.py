"""The bare loop on the openai SDK's Responses API, and at the step cap a plain summary built from the
tool results it got.

Expert score: 66. Why: the bare loop right (60); at the limit the user gets what was found, in prose (6);
the step cap is its only brake.
"""
import json

import openai  # noqa: F401


def agent(client, run_tool, user_message, tools):
    items = [{"role": "user", "content": user_message}]
    found = []
    for _ in range(8):
        response = client.responses.create(model="gpt-5.4-mini", input=items, tools=tools)
        calls = [item for item in response.output if item.type == "function_call"]
        items += [item.model_dump(exclude_none=True) for item in response.output]
        if not calls:
            return response.output_text
        for call in calls:
            try:
                result = run_tool(call.name, json.loads(call.arguments))
                found.append(result[:200])
            except Exception as exc:
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            items.append({"type": "function_call_output", "call_id": call.call_id, "output": result})
    return {"answer": "I ran out of steps. Here is what I found: " + ("; ".join(found[-3:]) or "nothing")
                      + ". Ask me again with a narrower question.", "stop_reason": "max_steps"}
