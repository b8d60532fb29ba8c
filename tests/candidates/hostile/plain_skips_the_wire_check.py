"""A plain candidate that switches off the wire check in its own process, sends a request the API refuses,
then asks the episode's model directly, past the API. Both must fail: the check runs on the grader's side.
"""
import json

from reference.wire import formats


def agent(llm, run_tool, user_message, tools):
    for fmt in formats.FORMATS.values():
        for cls in type(fmt).__mro__:
            if "check_request" in vars(cls):
                setattr(cls, "check_request", lambda self, body: None)
    try:
        llm([{"role": "user", "content": user_message}, {"role": "tool", "tool_call_id": "call_x", "content": "x"}],
            tools)
        print("ACCEPTED")
    except Exception as exc:
        print("REFUSED", type(exc).__name__)
    episode = llm.__self__.episode
    try:
        episode.model.complete(episode.initial_messages(), episode.tools.specs)
        print("BYPASSED")
    except Exception as exc:
        print("DIRECT", type(exc).__name__)
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
    return None
