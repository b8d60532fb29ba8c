"""Red flag: the raw stack trace goes to the model.

Expert score: 45. Why: the bare loop, but the raw stack trace goes to the model (a red flag: cost and a leak).
"""
import json
import traceback


def agent(llm, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    for _ in range(8):
        reply = llm(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            try:
                result = run_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
            except Exception:
                result = traceback.format_exc()
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return None
