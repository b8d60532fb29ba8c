"""Conversations in the chat-log format judged in shadow mode, the path `loopkit diagnose` takes."""
from __future__ import annotations

import json

from reference.diagnosis.logs import read_log
from reference.diagnosis.shadow import judge


def tool(name: str, description: str, annotations: dict | None = None, **properties: str | dict) -> dict:
    """A tool definition as the chat format logs it; `properties`: name -> JSON Schema type (or a whole schema)."""
    function = {"name": name, "description": description, "parameters": {
        "type": "object", "properties": {k: v if isinstance(v, dict) else {"type": v} for k, v in properties.items()}}}
    if annotations is not None:
        function["annotations"] = annotations
    return {"type": "function", "function": function}


def judged(tmp_path, tools: list[dict], user: str, steps: list[tuple], answer: str = "Done."):
    """The shadow judgement of a chat log: the user's message, then `steps`, (tool, arguments, answer) or (tool,
    arguments, answer, is_error), one call a step, or a text: the user's next turn; then the assistant's `answer`."""
    messages = [{"role": "user", "content": user}]
    for i, step in enumerate(steps):
        if isinstance(step, str):  # the assistant answered; the user speaks again
            messages += [{"role": "assistant", "content": "Ok."}, {"role": "user", "content": step}]
            continue
        name, args, result_, *error = step
        result = {"role": "tool", "tool_call_id": f"c{i}",
                  "content": result_ if isinstance(result_, str) else json.dumps(result_)}
        if error:
            result["is_error"] = error[0]
        messages += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                      "function": {"name": name, "arguments": json.dumps(args)}}]}, result]
    messages.append({"role": "assistant", "content": answer})
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"id": "x", "tools": tools, "messages": messages}), encoding="utf-8")
    (conversation,) = list(read_log(path))
    return judge(conversation)


def flags(tmp_path, tools: list[dict], user: str, steps: list[tuple]) -> list[tuple[int, str, str]]:
    """(message, verdict, rule) of every call the guard would not simply run; `steps` as `judged` takes them."""
    return [(c["message"], c["verdict"], c["rule"]) for c in judged(tmp_path, tools, user, steps).calls
            if c["verdict"] != "run"]
