"""Candidate template, kind `openai-chat`: a loop on the official `openai` SDK, Chat Completions.

The grader hands in `client`, an `openai.OpenAI` whose requests go to the scripted model (any model
name will do), `run_tool(name, args) -> str` (raises when the tool fails) and `tools` in Chat
Completions form. Grade it: `loopkit grade docs/candidates/openai_chat.py`.

Expert score: 60. Why: the bare loop: the pass line.
"""
import json

import openai  # noqa: F401  (the grader reads the import: this file is an openai loop)


def agent(client, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    for _ in range(8):
        response = client.chat.completions.create(model="gpt-5.4-mini", messages=messages, tools=tools)
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            try:
                result = run_tool(call.function.name, json.loads(call.function.arguments))
            except Exception as exc:
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return None
