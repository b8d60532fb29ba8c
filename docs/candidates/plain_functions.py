"""Candidate template, kind `plain`: the whiteboard loop on two functions the grader hands in.

    llm(messages, tools=None) -> the assistant message, an OpenAI Chat Completions dict:
        {"role": "assistant", "content": "..." or None,
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "get_order_status", "arguments": "{\"order_id\": \"A1234\"}"}}]}
    run_tool(name, args) -> the tool's result as a string (it raises when the tool fails, as real tools do)
    tools -> the tool definitions, Chat Completions style (optional parameter: leave it out if you like)

Return the answer (a string). Or a dict {"answer": ..., "stop_reason": ..., "degraded": ...} to say why
the loop stopped (stop reasons: `loopkit grade --help`). Grade it: `loopkit grade docs/candidates/plain_functions.py`.

Expert score: 60. Why: the bare loop: the pass line.
"""
import json


def agent(llm, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    for _ in range(8):
        reply = llm(messages, tools)
        messages.append(reply)  # the assistant turn, tool calls included, before the results
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            args = json.loads(call["function"]["arguments"])
            try:
                result = run_tool(call["function"]["name"], args)
            except Exception as exc:  # the error's type only: its text may hold a stack trace or a secret
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return None
