"""Conversations in the chat-log format judged in shadow mode, the path `loopkit diagnose` takes."""
from __future__ import annotations

import json

from reference.diagnosis.logs import read_log
from reference.diagnosis.shadow import judge


def tool(name: str, description: str, annotations: dict | None = None, **properties: str) -> dict:
    """A tool definition as the chat format logs it; `properties`: name -> JSON Schema type."""
    function = {"name": name, "description": description, "parameters": {
        "type": "object", "properties": {k: {"type": v} for k, v in properties.items()}}}
    if annotations is not None:
        function["annotations"] = annotations
    return {"type": "function", "function": function}


def flags(tmp_path, tools: list[dict], user: str, steps: list[tuple]) -> list[tuple[int, str, str]]:
    """(message, verdict, rule) of every call the guard would not simply run; `steps`: (tool, arguments, answer)
    or (tool, arguments, answer, is_error), one call a step."""
    messages = [{"role": "user", "content": user}]
    for i, (name, args, answer, *error) in enumerate(steps):
        result = {"role": "tool", "tool_call_id": f"c{i}",
                  "content": answer if isinstance(answer, str) else json.dumps(answer)}
        if error:
            result["is_error"] = error[0]
        messages += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                      "function": {"name": name, "arguments": json.dumps(args)}}]}, result]
    messages.append({"role": "assistant", "content": "Done."})
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"id": "x", "tools": tools, "messages": messages}), encoding="utf-8")
    (conversation,) = list(read_log(path))
    return [(c["message"], c["verdict"], c["rule"]) for c in judge(conversation).calls if c["verdict"] != "run"]
