"""Red flag: the user gets "max steps reached" as the answer.

Expert score: 55. Why: the bare loop right, but at the limit the user gets "max steps reached" (a red flag).
"""
import json


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
            except Exception as exc:
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return "Max steps reached."
