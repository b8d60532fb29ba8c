"""The kit's token estimator: one token per 4 characters of the request as the wire sends it.

Rough on purpose and documented: ~4 characters per token is the usual rule of thumb for English
text in OpenAI's and Anthropic's tokenizers, and it needs no download. What matters for the lessons
is that the whole request is counted (every message plus the tool schemas) so that a growing
context costs what it would cost: input tokens grow with the history, step after step.

    input_tokens  = sum over messages of (4 + ceil(chars(json(message)) / 4)) + ceil(chars(json(tools)) / 4) + 3
    output_tokens = ceil(chars(text) / 4) + sum over tool calls of (4 + ceil(chars(name + arguments) / 4))

Counted again from scratch at every step, that is n² work over a run of n steps; `counter(wire)` counts
each message once, when it is new (reference/wire/incremental.py), with the same result.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from ..core import jsontext
from ..core.messages import ToolCall
from ..wire.incremental import Built, WireBuilder

PER_MESSAGE = 4  # role markers and separators, as chat formats add them
PER_REQUEST = 3


def count(text: str) -> int:
    return math.ceil(len(text) / 4)


# json.dumps(value, ensure_ascii=False, separators=(",", ":")) with its C encoder made once (reference/core/
# jsontext.py): a request's items and tools are built from messages and tool specs, or parsed from JSON
_dump = jsontext.dumps(ensure_ascii=False, separators=(",", ":"))


def item_tokens(item: dict[str, Any]) -> int:
    """One message (one input item) of the request, as the wire sends it."""
    return PER_MESSAGE + count(_dump(item))


def _total(items: int, system: str | None, tools: Any) -> int:
    total = PER_REQUEST + items
    if system:
        total += PER_MESSAGE + count(system)
    if tools:
        total += count(_dump(tools))
    return total


def request_tokens(wire_body: dict[str, Any]) -> int:
    messages = wire_body.get("messages") or wire_body.get("input") or []
    return _total(sum(item_tokens(m) for m in messages), wire_body.get("system"), wire_body.get("tools"))


def built_tokens(built: Built) -> int:
    """`request_tokens(built.body())`, from the item counts the builder keeps (see `counter`)."""
    return _total(built.measured, built.system, built.tools)


def counter(wire: str) -> WireBuilder:
    """A builder that counts each wire item once: `built_tokens(counter.build(messages, tools))` is
    `request_tokens(to_wire(messages, tools, wire))` at a cost that does not grow with the history."""
    return WireBuilder(wire, measure=item_tokens)


def output_tokens(text: str | None, tool_calls: Sequence[ToolCall]) -> int:
    return count(text or "") + sum(PER_MESSAGE + count(c.name + c.arguments) for c in tool_calls)
