"""An over-eager guard: the bare loop, stopped as soon as the same tool name comes twice in a row,
whatever its arguments or its results (so paging and polling are stopped too).

Expert score: 50. Why: skeleton and pairing right (60); it catches repeats but stops legitimate paging and
polling (a red flag, -10, and little of the guard item); no budget, errors kept inside but not retried, and
a bare "stopped" message at the stop with nothing that was found.
"""
import json


def agent(llm, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    last = None
    for _ in range(8):
        reply = llm(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        names = [c["function"]["name"] for c in reply["tool_calls"]]
        if names == last:
            return {"answer": "Stopped: the agent was repeating a tool.", "stop_reason": "repeated_call"}
        last = names
        for call in reply["tool_calls"]:
            try:
                result = run_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
            except Exception as exc:
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return None
