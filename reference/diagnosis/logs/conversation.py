"""One conversation read from a log, in the kit's own messages, with where each came from.

Every reader (chat.py, responses.py, spans.py, kittrace.py) turns its format into a `Conversation`:
the kit's messages (reference/core/messages.py), and for each of them the index of the entry of the
log's own list that held it, so that a verdict points at the line a person will open. Calls are paired
with their results here, once, for every format (`Pairing`): by id as the wire formats define, by
position where an id is missing or was used before (real logs reuse `tool_call_id`s), and the
conversation's notes say which calls were paired by position and why.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from ...core.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage


@dataclass
class Conversation:
    source: str  # the file it came from
    index: int  # its 0-based position in the file
    format: str  # which reader read it
    messages: list[Message] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)  # per message: the index of its entry in the log's list
    id: Optional[str] = None  # the log's own id, if any
    metadata: dict[str, Any] = field(default_factory=dict)  # the log's other keys (task ids, rewards, ...)
    tools: list[dict[str, Any]] = field(default_factory=list)  # definitions when the log has them: name,
    # description, parameters, annotations (tools.py reads the three wire formats' shapes and MCP's)
    call_entries: dict[str, int] = field(default_factory=dict)  # kit call id -> the entry that holds the call
    unknown: set[str] = field(default_factory=set)  # kit ids of calls whose result the log did not capture
    by_position: set[str] = field(default_factory=set)  # kit ids of calls whose result was paired by position
    tokens: dict[int, int] = field(default_factory=dict)  # entry index -> tokens the log recorded for it
    notes: list[str] = field(default_factory=list)  # how calls were paired where ids did not say
    problems: list[str] = field(default_factory=list)  # entries that could not be read (skipped)
    system: Optional[str] = None  # a top-level system / instructions field (not an entry)


class Pairing:
    """Builds a conversation's messages, pairing each tool result with the call it answers."""

    def __init__(self, conversation: Conversation) -> None:
        self.c = conversation
        self._open: list[tuple[str, ToolCall, int]] = []  # (id as logged, call with its kit id, entry)
        self._used: set[str] = set()  # every call id logged so far
        self._kit_ids: set[str] = set()
        self._reused: set[str] = set()  # ids logged on more than one call
        self._users: set[str] = set()  # kit ids of calls a user entry made (the user's own actions)

    def add(self, message: Message, entry: int) -> None:
        self.c.messages.append(message)
        self.c.positions.append(entry)

    def user_calls(self, entry: int, calls: list[tuple]) -> None:
        """Calls a user entry made (a simulated user acting on its device): the user's actions, not the
        agent's, so they are not judged; their results are read as part of the user's turn."""
        for k, (logged, name, arguments) in enumerate(calls):
            logged = logged if isinstance(logged, str) and logged else None
            kit_id = f"user_{entry}_{k}"
            self._users.add(kit_id)
            self._open.append((logged or "", ToolCall(kit_id, name, arguments), entry))

    def say(self, entry: int, text: Optional[str], calls: list[tuple]) -> None:
        """An assistant entry: its text and its calls as (id or None, tool name, argument text), each with
        the entry that holds it as a fourth item where that is not `entry` (Responses: one item per call)."""
        kit_calls = []
        for k, (logged, name, arguments, *held) in enumerate(calls):
            at = held[0] if held else entry
            logged = logged if isinstance(logged, str) and logged else None
            kit_id = logged if logged and logged not in self._kit_ids else f"call_{at}_{k}"
            if logged is None:
                self.c.notes.append(f"message {at}: the call to {name} has no id")
            elif logged in self._used:
                self.c.notes.append(f"message {at}: the call to {name} reuses the id {logged}")
                self._reused.add(logged)
            self._kit_ids.add(kit_id)
            call = ToolCall(kit_id, name, arguments)
            self._open.append((logged or "", call, at))
            self.c.call_entries[kit_id] = at
            if logged:
                self._used.add(logged)
            kit_calls.append(call)
        self.add(AssistantMessage(text or None, tuple(kit_calls)), entry)

    def answer(self, entry: int, logged: Optional[str], content: str, is_error: bool, captured: bool = True,
               named: Any = None) -> None:
        """A tool result naming the call it answers (or not); `captured` False when the log holds no content;
        `named` the tool the result says it came from, where the log writes one."""
        if not self._open:
            self.c.problems.append(f"message {entry}: a tool result with no open call before it (skipped)")
            return
        same = [i for i, (known, _, _) in enumerate(self._open) if logged and known == logged]
        reused = logged in self._reused
        if len(same) == 1 and not reused:
            i = same[0]
        else:
            i = 0  # the oldest call still waiting: results come back in the order of the calls
            _, call, at = self._open[0]
            why = ("it has no id" if not logged else "its id is used by more than one call" if same or reused
                   else f"no open call has the id {logged}")
            self.c.notes.append(f"message {entry}: the result was paired by position with the call to "
                                f"{call.name} at message {at} ({why})")
        _, call, at = self._open.pop(i)
        if isinstance(named, str) and named and named != call.name:  # the log contradicts itself: say so
            self.c.notes.append(f"message {entry}: the result names the tool {named}, but it answers the call "
                                f"to {call.name} at message {at}")
        if call.id in self._users:
            self.add(UserMessage(f"{call.name}({call.arguments}) returned: {content}"), entry)
            return
        if i == 0 and not (len(same) == 1 and not reused):
            self.c.by_position.add(call.id)
        if not captured:
            self.c.unknown.add(call.id)
        self.add(ToolMessage(call.id, content, is_error=is_error), entry)


def text_of(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict):
                text = part.get("text", part.get("content"))
                if isinstance(text, str):
                    out.append(text)
                elif text is not None:
                    out.append(text_of(text))
        return "\n".join(out)
    if isinstance(content, dict):
        return text_of(content.get("text", content.get("content")))
    return str(content)


def arguments_text(value: Any) -> str:
    """Call arguments as the raw JSON text the kit keeps: a string as logged, an object serialised."""
    if isinstance(value, str):
        return value
    if value is None:
        return "{}"
    return json.dumps(value, ensure_ascii=False)
