"""The bare loop, but every failing tool call is retried three times at once, bad arguments and
permission errors included, with no wait.

Expert score: 50. Why: skeleton and pairing right (60), but it retries everything (a red flag, -10); no
budget, no guard, nothing at the limit.
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
            args = json.loads(call["function"]["arguments"])
            result = json.dumps({"ok": False, "error": "failed"})
            for _attempt in range(3):
                try:
                    result = run_tool(call["function"]["name"], args)
                    break
                except Exception as exc:
                    result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return None
