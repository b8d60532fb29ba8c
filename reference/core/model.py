"""The model interface: everything downstream talks only to `Model.complete`.

A model takes the conversation and the offered tools and returns one `Turn`: the assistant's text,
its tool calls (possibly several, in parallel), why it stopped, and the tokens it used.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

from .messages import AssistantMessage, Message, ToolCall, ToolSpec

@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class Turn:
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"  # normalised: "stop", "tool_calls", "length" (cut off) or "refusal"
    usage: Usage = field(default_factory=Usage)

    @property
    def message(self) -> AssistantMessage:
        """The assistant message to append to the history (tool calls included)."""
        return AssistantMessage(self.text, self.tool_calls)


class Model(Protocol):
    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        """One request. `tool_choice="none"` offers the tools but forbids calling them (a last,
        tool-less answer); the history may still hold tool calls, which is why tools stay declared."""
        ...


@dataclass(frozen=True)
class Pricing:
    """US dollars per million tokens. The kit's defaults are illustrative, set per scenario."""

    input_per_mtok: float = 2.5
    output_per_mtok: float = 10.0

    def cost(self, usage: Usage) -> float:
        return (usage.input_tokens * self.input_per_mtok + usage.output_tokens * self.output_per_mtok) / 1_000_000
