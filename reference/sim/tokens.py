"""The kit's token estimator: one token per 4 characters of the request as the wire sends it.

Rough on purpose and documented: ~4 characters per token is the usual rule of thumb for English
text in OpenAI's and Anthropic's tokenizers, and it needs no download. What matters for the lessons
is that the whole request is counted (every message plus the tool schemas) so that a growing
context costs what it would cost: input tokens grow with the history, step after step.

    input_tokens  = sum over messages of (4 + ceil(chars(json(message)) / 4)) + ceil(chars(json(tools)) / 4) + 3
    output_tokens = ceil(chars(text) / 4) + sum over tool calls of (4 + ceil(chars(name + arguments) / 4))
"""
from __future__ import annotations

import json
import math
from typing import Any, Sequence

from ..core.messages import ToolCall

PER_MESSAGE = 4  # role markers and separators, as chat formats add them
PER_REQUEST = 3


def count(text: str) -> int:
    return math.ceil(len(text) / 4)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def request_tokens(wire_body: dict[str, Any]) -> int:
    messages = wire_body.get("messages") or wire_body.get("input") or []
    total = PER_REQUEST + sum(PER_MESSAGE + count(_dump(m)) for m in messages)
    if wire_body.get("system"):
        total += PER_MESSAGE + count(wire_body["system"])
    if wire_body.get("tools"):
        total += count(_dump(wire_body["tools"]))
    return total


def output_tokens(text: str | None, tool_calls: Sequence[ToolCall]) -> int:
    return count(text or "") + sum(PER_MESSAGE + count(c.name + c.arguments) for c in tool_calls)
