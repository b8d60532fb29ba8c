"""Red flag: a tool exception leaves the loop (one timeout ends the whole run).

Expert score: 45. Why: the bare loop, but a tool exception leaves the loop: one timeout ends the run (a red flag) and the error scenarios fail.
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
            result = run_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return None
