"""What a request's `tool_choice` allows the answer to do, read from each service's own shapes.

    OpenAI Chat       "auto" | "none" | "required" | {"type": "function", "function": {"name": N}}
                      | {"type": "allowed_tools", "allowed_tools": {"mode": M, "tools": [{"type": "function",
                        "function": {"name": N}}, ...]}}
    OpenAI Responses  the same strings | {"type": "function", "name": N}
                      | {"type": "allowed_tools", "mode": M, "tools": [{"type": "function", "name": N}, ...]}
    Anthropic         {"type": "auto" | "any" | "none"} | {"type": "tool", "name": N}

A scripted model cannot be steered: its next turn is what the script says. So a server honours a choice by
restricting that turn to what the choice allows (`restrict`), and where nothing of the turn is allowed it
says so instead of answering something the client did not allow (`CannotHonour`, a kit 400).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..core.messages import ToolSpec
from ..core.model import Turn


@dataclass(frozen=True)
class ToolChoice:
    mode: str  # "auto", "none" or "required" (at least one call)
    names: tuple[str, ...] | None = None  # the only tools a call may use; None: any the request declares

    @property
    def asked(self) -> str:
        """What a kit `Model` is asked: it knows "auto" and "none" only."""
        return "none" if self.mode == "none" else "auto"


class CannotHonour(Exception):
    """The script's next turn does nothing the request's tool_choice allows."""


def _names(tools: Any, nested: bool) -> tuple[str, ...] | None:
    if not isinstance(tools, list):
        return None
    names = [(t.get("function") or {}).get("name") if nested else t.get("name") for t in tools if isinstance(t, dict)]
    return tuple(names) if names and all(isinstance(n, str) for n in names) else None


def parse(wire: str, body: dict[str, Any]) -> ToolChoice | None:
    """The request's tool_choice (absent: "auto"); None for a shape the kit does not read."""
    choice = body.get("tool_choice")
    if choice is None:
        return ToolChoice("auto")
    if wire == "anthropic":
        kind = choice.get("type") if isinstance(choice, dict) else None
        if kind == "tool":
            return ToolChoice("required", (choice["name"],)) if isinstance(choice.get("name"), str) else None
        mode = {"auto": "auto", "none": "none", "any": "required"}.get(kind or "")
        return ToolChoice(mode) if mode else None
    if choice in ("auto", "none", "required"):
        return ToolChoice(choice)
    if not isinstance(choice, dict):
        return None
    nested = wire == "openai-chat"  # Chat nests a function's name one level deeper than Responses
    if choice.get("type") == "function":
        name = (choice.get("function") or {}).get("name") if nested else choice.get("name")
        return ToolChoice("required", (name,)) if isinstance(name, str) else None
    if choice.get("type") == "allowed_tools":
        allowed = choice.get("allowed_tools") if nested else choice
        if isinstance(allowed, dict) and allowed.get("mode") in ("auto", "required"):
            names = _names(allowed.get("tools"), nested)
            return ToolChoice(allowed["mode"], names) if names else None
    return None


def problem(choice: ToolChoice, tools: Sequence[ToolSpec]) -> str | None:
    """A choice no answer can honour (a kit text: the services' own wording for these is not known)."""
    declared = {t.name for t in tools}
    unknown = [n for n in choice.names or () if n not in declared]
    if unknown:
        return f"tool_choice names {', '.join(unknown)}, which the request's tools do not declare."
    if choice.mode == "required" and not tools:
        return "tool_choice requires a tool call, and the request declares no tools."
    return None


def restrict(turn: Turn, choice: ToolChoice) -> Turn:
    """The script's turn cut down to the calls `choice` allows; CannotHonour where none is left and one is due."""
    allowed = [c for c in turn.tool_calls if choice.names is None or c.name in choice.names]
    if choice.mode == "none" or len(allowed) == len(turn.tool_calls) and (allowed or choice.mode == "auto"):
        return turn
    called = ", ".join(c.name for c in turn.tool_calls)
    if not allowed and turn.tool_calls:
        raise CannotHonour(f"tool_choice allows {', '.join(choice.names or ())} only, and the script's next turn "
                           f"calls {called}: the scripted model cannot honour it.")
    if not allowed:
        raise CannotHonour("tool_choice requires a tool call, and the script's next turn is a text answer: the "
                           "scripted model cannot honour it.")
    return Turn(turn.text, tuple(allowed), "tool_calls", turn.usage)
