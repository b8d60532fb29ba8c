"""The naive loop on the async openai client: `async def agent(client, ...)` gets an `openai.AsyncOpenAI`.

Expert score: 60. Why: the bare loop on the async SDK: the pass line.
"""
import json

import openai  # noqa: F401


async def agent(client, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    for _ in range(8):
        response = await client.chat.completions.create(model="gpt-5.4-mini", messages=messages, tools=tools)
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
