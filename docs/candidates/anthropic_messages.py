"""Candidate template, kind `anthropic`: a loop on the official `anthropic` SDK (Messages API).

The grader hands in `client` (an `anthropic.Anthropic` served by the scripted model), `run_tool(name,
args) -> str` and `tools` in Messages form. Grade it: `loopkit grade docs/candidates/anthropic_messages.py`.

Expert score: 60. Why: the bare loop: the pass line.
"""
import json

import anthropic  # noqa: F401


def agent(client, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    for _ in range(8):
        response = client.messages.create(model="claude-haiku-4-5", max_tokens=1024, messages=messages,
                                          tools=tools)
        messages.append({"role": "assistant", "content": [block.model_dump(exclude_none=True)
                                                          for block in response.content]})
        calls = [block for block in response.content if block.type == "tool_use"]
        if not calls:
            return "".join(block.text for block in response.content if block.type == "text")
        results = []
        for call in calls:
            try:
                content = run_tool(call.name, call.input)
            except Exception as exc:
                content = json.dumps({"ok": False, "error": type(exc).__name__})
            results.append({"type": "tool_result", "tool_use_id": call.id, "content": content})
        messages.append({"role": "user", "content": results})
    return None
