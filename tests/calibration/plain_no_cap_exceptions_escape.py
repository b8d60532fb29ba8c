"""`while True` with no step cap, and tool exceptions that escape the loop.

Expert score: 10. Why: the history is paired right (30), but there is no step cap (no skeleton), a
stubborn model keeps it going until something else kills it, and one tool exception ends the run: two
red flags (-20).
"""
import json


def agent(llm, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    while True:
        reply = llm(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            result = run_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
