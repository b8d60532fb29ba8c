"""Tool calls and results a client sends as plain text, read back as the tool turns they were.

smolagents' ToolCallingAgent keeps its own memory and renders each step for the model as text
(smolagents/memory.py, `ActionStep.to_messages`): the step's calls as an assistant turn
"Calling tools:\n" + the Python repr of a list of {"id", "type", "function": {"name", "arguments"}},
then the tools' results as a user turn "Observation:\n" + the results joined with newlines, or, when
the step failed, a user turn "Call id: ID\nError:\n..." . Read as text, a scripted model could not tell
those results from the user talking, so no reaction could look at them; read back as an assistant turn
with its calls and one tool message per call, they are heard as every other client's results are.
Legitimate case this must not change: a user or an assistant who merely writes those words in prose
(a turn is read back only when its calls parse and the next turn answers them).
"""
from __future__ import annotations

import ast
import json
import re
from typing import Sequence

from ..core.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage

CALLS = "Calling tools:\n"
OBSERVATION = "Observation:\n"
ERROR = re.compile(r"^Call id: (?P<id>\S+)\nError:\n", re.S)


def read_text_turns(messages: Sequence[Message]) -> list[Message]:
    """The conversation with text-rendered tool steps turned into tool calls and tool messages."""
    out: list[Message] = []
    for i, message in enumerate(messages):
        previous = out[-1] if out else None
        if isinstance(message, AssistantMessage) and not message.tool_calls and message.text:
            calls = _calls(message.text)
            following = messages[i + 1] if i + 1 < len(messages) else None
            if calls and isinstance(following, UserMessage) and _answers(following.text):
                lead = message.text[:message.text.index(CALLS)].strip() or None
                out.append(AssistantMessage(lead, tuple(calls)))
                continue
        if (isinstance(message, UserMessage) and isinstance(previous, AssistantMessage) and previous.tool_calls
                and _answers(message.text) and not _answered(out)):
            out.extend(_results(previous.tool_calls, message.text))
            continue
        out.append(message)
    return out


def _answers(text: str) -> bool:
    return text.startswith(OBSERVATION) or ERROR.match(text) is not None


def _answered(out: list[Message]) -> bool:
    return bool(out) and isinstance(out[-1], ToolMessage)


def _calls(text: str) -> list[ToolCall]:
    """The calls of a "Calling tools:" turn, or [] when the text is not one."""
    if CALLS not in text:
        return []
    try:
        listed = ast.literal_eval(text[text.index(CALLS) + len(CALLS):].strip())
        calls = []
        for entry in listed:
            function = entry["function"]
            arguments = function.get("arguments", {})
            arguments = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
            calls.append(ToolCall(str(entry["id"]), str(function["name"]), arguments))
        return calls
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError):
        return []


def _results(calls: Sequence[ToolCall], text: str) -> list[ToolMessage]:
    """One tool message per call: the observation's lines shared out one per call when they match the
    number of calls (smolagents joins one result per call with newlines), else the whole text for each."""
    failed = ERROR.match(text)
    if failed:
        return [ToolMessage(call.id, text[failed.end():], is_error=True) for call in calls
                if call.id == failed["id"]] or [ToolMessage(calls[0].id, text[failed.end():], is_error=True)]
    body = text[len(OBSERVATION):]
    lines = body.split("\n")
    if len(calls) > 1 and len(lines) == len(calls):
        return [ToolMessage(call.id, line) for call, line in zip(calls, lines)]
    return [ToolMessage(call.id, body) for call in calls]
