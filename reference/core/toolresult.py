"""The structured tool result: the one shape every tool answer takes, built and read here only.

    {"ok": true,  "data": ...}
    {"ok": false, "error_type": "timeout", "retryable": true, "message": "...", ...more fields}

Fake tools, the executor's translations, the guard's interventions and the loop's "not run"
answers all build their error bodies with `error_body`, so the model always reads one format
(`ok`, `error_type` and `retryable` first), and everything that inspects a result reads it with
`read_result`.
"""
from __future__ import annotations

import json
from typing import Any

from .messages import ToolMessage


def error_body(error_type: str | None, message: str | None, *, retryable: bool = False, **fields: Any) -> dict[str, Any]:
    """A failed call's body: `ok`, `error_type`, `retryable` and `message` first, then `fields` in order."""
    body: dict[str, Any] = {"ok": False, "error_type": error_type, "retryable": retryable, "message": message}
    body.update(fields)
    return body


def to_json(body: Any) -> str:
    """The text the model reads. `default=str`: a tool's odd value must not crash the loop."""
    return json.dumps(body, ensure_ascii=False, default=str)


def tool_error(call_id: str, error_type: str, message: str | None, *, retryable: bool = False,
               **fields: Any) -> ToolMessage:
    """A tool result that answers `call_id` with a structured error."""
    return ToolMessage(call_id, to_json(error_body(error_type, message, retryable=retryable, **fields)),
                       is_error=True)


def read_body(content: str) -> dict[str, Any] | None:
    """The result's JSON object, or None for plain text, other JSON values and unreadable text."""
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
        return None
    return body if isinstance(body, dict) else None


def read_result(content: str) -> tuple[bool, Any]:
    """(ok, payload): the data when the call succeeded, the error's type and text when not.

    Plain text and JSON that is not in the structured shape count as a success carrying that value. An API's
    own `ok` envelope, without `data` or `error_type` (Slack's Web API: `{"ok": true, "channels": [...]}`,
    `{"ok": false, "error": "channel_not_found"}`), carries its answer in its other members."""
    body = read_body(content)
    if body is None:
        try:
            return True, json.loads(content)
        except (ValueError, RecursionError):
            return True, content
    if "ok" in body:
        if "data" not in body and "error_type" not in body:
            return bool(body.get("ok")), {k: v for k, v in body.items() if k != "ok"}
        if body.get("ok"):
            return True, body.get("data")
        return False, {"error_type": body.get("error_type"), "message": body.get("message")}
    return True, body


def clip(content: str, limit: int, *, ok: bool = True, ask: str = "") -> str:
    """A result cut to `limit` characters of its text, head and tail, with a note saying what was cut (and,
    given `ask`, how to get the rest). A long result's start says what it is and its end how it ended (the
    last log lines, the total); its middle is what a model can best ask for again. The kit's one clipping:
    the executor's for an oversized result (lesson 5), the degrader's for the last answer's request (lesson 4)."""
    if len(content) <= limit:
        return content
    head = max(1, limit * 2 // 3)
    tail = max(0, limit - head)
    cut = len(content) - head - tail
    note = (f"{cut:,} of {len(content):,} characters cut from the middle; shown: the first {head:,} and the "
            f"last {tail:,}") + (f". {ask}" if ask else "")
    return to_json({"ok": ok, "data": content[:head] + " … " + content[len(content) - tail:], "clipped": note})
