"""`read_log(path)`: every conversation in a log file, one at a time, whatever the format (told by content).

    a JSON array of messages                      one conversation (chat.py tells the wire format)
    a JSON array of conversations                 each one (message lists, or objects holding one)
    an object holding a list of conversations     each one, whatever the key (a benchmark's results file)
    JSON Lines, one conversation a line           a message list, or an object holding it under `messages`,
                                                  `trajectory`, `traj`, `conversation` or `history` (the
                                                  first that holds messages), its other keys kept as metadata
    JSON Lines, one message a line                one conversation
    OTLP JSON (`resourceSpans`), or the kit's span lines    one conversation per trace (spans.py)
    the kit's JSONL traces                        one conversation per run (kittrace.py)

JSON Lines are read a line at a time: memory holds one conversation, not the file (span files are the
exception: a trace's spans may be anywhere in the file, so they are grouped first). A bad line is one
problem (its number and why, e.g. a truncated last line) and the rest of the file is still read.
"""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from . import chat, spans
from .conversation import Conversation
from .kittrace import TraceReader, is_record

LIST_KEYS = ("messages", "trajectory", "traj", "conversation", "history", "input", "items")
ID_KEYS = ("id", "conversation_id", "instance_id", "task_id", "session_id", "trace_id")
EXPECTED = ("a JSON array of messages or conversations, JSON Lines of conversations or messages "
            "(OpenAI Chat Completions, Anthropic Messages, OpenAI Responses items; or objects holding "
            "the list under " + "/".join(LIST_KEYS) + "), OTLP JSON spans, the kit's span lines, or a kit trace")


class NotALog(ValueError):
    """The file is none of the formats diagnose reads (one line, naming what was expected)."""


Problem = Callable[[str], None]


def read_log(path: str | Path, problem: Optional[Problem] = None) -> Iterator[Conversation]:
    """The conversations of one file, in order; `problem(line)` hears of every entry that was skipped."""
    source = str(path)
    say: Problem = problem or (lambda line: None)
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(1 << 16)
        first = head.lstrip()[:1]
        f.seek(0)
        rest = head.lstrip().split("\n", 1)[1:]
        if not rest and len(head) == 1 << 16:  # a first line longer than the peek: is there a second one?
            f.readline()
            rest = [f.readline()]
            f.seek(0)
        lines = _first_line_parses(head) and (first == "{" or bool(rest and rest[0].strip()))
        if first in "[{" and first and not lines:
            text = f.read()
            try:
                data = json.loads(text)
            except ValueError as exc:
                if not any(_parses(line) for line in text.splitlines()[1:]):
                    raise NotALog(f"{source}: not valid JSON ({exc}); expected {EXPECTED}") from None
                yield from _lines(source, io.StringIO(text), say)  # JSON Lines whose first line is bad
                return
            yield from _whole(source, data, say)
        elif first == "{" and not (rest and rest[0].strip()):  # one object on one line: a file, or one line
            text = f.read()
            try:
                obj: Any = json.loads(text)
            except ValueError:
                obj = None  # a cut-off line: JSON Lines say so, with its number
            if isinstance(obj, dict) and _kind(obj) == "conversation":  # no log: one line, as for an indented file
                yield from _whole(source, obj, say)
            else:
                yield from _lines(source, io.StringIO(text), say)
        elif first in "[{" and first:
            yield from _lines(source, f, say)
        else:
            raise NotALog(f"{source}: not a log diagnose reads; expected {EXPECTED}")


def _first_line_parses(head: str) -> bool:
    line = head.lstrip().split("\n", 1)[0]
    try:
        json.loads(line)
        return True
    except ValueError:
        return "\n" not in head.lstrip()  # one long line cut by the 64 KiB peek: JSON Lines all the same


def _parses(line: str) -> bool:
    """Is this line a JSON object or array by itself (a line of JSON Lines, not a piece of indented JSON)?"""
    try:
        return isinstance(json.loads(line), (dict, list))
    except ValueError:
        return False


def _whole(source: str, data: Any, say: Problem) -> Iterator[Conversation]:
    if isinstance(data, dict) and "resourceSpans" in data:
        yield from _report(spans.conversations(source, spans.otlp_spans(data)), say)
    elif isinstance(data, dict) and _message_key(data) is None and _conversations_key(data) is not None:
        yield from _each(source, data[_conversations_key(data)], say)  # e.g. a results file: runs under one key
    elif isinstance(data, dict):
        try:
            found = conversation(source, 0, data)
        except ValueError as exc:
            raise NotALog(f"{source}: {exc}, nor a list of conversations under any key; expected {EXPECTED}") from None
        yield from _report([found], say)
    elif isinstance(data, list) and chat.detect(data):
        yield from _report([conversation(source, 0, data)], say)
    elif isinstance(data, list):
        yield from _each(source, data, say)
    else:
        raise NotALog(f"{source}: holds a JSON {type(data).__name__}; expected {EXPECTED}")


def _each(source: str, items: list[Any], say: Problem) -> Iterator[Conversation]:
    for i, item in enumerate(items):
        try:
            yield from _report([conversation(source, i, item)], say)
        except ValueError as exc:
            say(f"{source}: conversation {i}: {exc} (skipped)")


def _message_key(data: dict[str, Any]) -> Optional[str]:
    """The LIST_KEYS key holding this object's own message list, if any."""
    return next((k for k in LIST_KEYS if isinstance(data.get(k), list) and chat.detect(data[k])), None)


def _conversations_key(data: dict[str, Any]) -> Optional[str]:
    """A key whose value is a list of objects each holding a message list: the file's conversations, whatever
    the key is called (benchmark results keep their runs beside their metadata)."""
    for key, value in data.items():
        if (isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
                and all(_message_key(v) is not None for v in value[:20])):
            return key
    return None


def _lines(source: str, f: Any, say: Problem) -> Iterator[Conversation]:
    kind: Optional[str] = None  # settled by the first good line
    trace: Optional[TraceReader] = None
    span_list: list[spans.Span] = []
    messages: list[Any] = []
    n = 0
    for number, line in enumerate(f, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            cut = "" if line.endswith("\n") else " - the file may be truncated"
            say(f"{source}: line {number}: not valid JSON ({exc}){cut} (skipped)")
            n += kind in (None, "conversation")  # a conversation's number is its line's place among them
            continue
        kind = kind or _kind(obj)
        try:
            if kind == "kit-trace":
                trace = trace or TraceReader(source)
                if not is_record(obj):
                    raise ValueError("not a trace record")
                done = trace.feed(obj)
                if done:
                    yield from _report([done], say)
            elif kind == "otlp":
                span_list.extend(spans.otlp_spans(obj))
            elif kind == "kit-spans":
                span_list.append(spans.kit_span(obj))
            elif kind == "message":
                messages.append(obj)
            elif isinstance(obj, list) and obj and not chat.detect(obj):  # a line holding many conversations
                for item in obj:
                    yield from _report([conversation(source, n, item, line=number)], say)
                    n += 1
            elif isinstance(obj, dict) and _message_key(obj) is None and _conversations_key(obj) is not None:
                for item in obj[_conversations_key(obj)]:  # a line holding a results file's runs
                    yield from _report([conversation(source, n, item, line=number)], say)
                    n += 1
            else:
                yield from _report([conversation(source, n, obj, line=number)], say)
                n += 1
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            say(f"{source}: line {number}: {exc} (skipped)")
            n += kind == "conversation"
    if trace is not None:
        left = trace.close()
        if left is not None:
            left.notes.append("the trace ends without a finish record: the run crashed or the file was cut off")
            yield from _report([left], say)
    if span_list:
        yield from _report(spans.conversations(source, span_list), say)
    if messages:
        yield from _report([conversation(source, 0, messages)], say)
    if kind is None:
        raise NotALog(f"{source}: no readable line; expected {EXPECTED}")


def _kind(obj: Any) -> str:
    if is_record(obj):
        return "kit-trace"
    if isinstance(obj, dict) and "resourceSpans" in obj:
        return "otlp"
    if isinstance(obj, dict) and isinstance(obj.get("context"), dict) and "trace_id" in obj["context"]:
        return "kit-spans"
    if isinstance(obj, dict) and not any(k in obj for k in LIST_KEYS) and chat.detect([obj]):
        return "message"
    return "conversation"


def conversation(source: str, index: int, data: Any, line: Optional[int] = None) -> Conversation:
    """One conversation from a message list, or from an object holding one under a LIST_KEYS key."""
    c = Conversation(source, index, "chat")
    if line is not None:
        c.metadata["line"] = line
    if isinstance(data, list):
        return chat.read_list(c, data)
    if not isinstance(data, dict):
        raise ValueError(f"a conversation must be a message list or an object holding one, got {type(data).__name__}")
    key = _message_key(data)
    if key is None:
        raise ValueError("no message list under any of " + ", ".join(LIST_KEYS))
    found = next((data[k] for k in ID_KEYS if isinstance(data.get(k), (str, int))), None)
    c.id = None if found is None else str(found)
    system = data.get("system", data.get("instructions"))
    c.system = chat.text_of(system) if system else None
    c.tools = tool_definitions(data.get("tools"))
    c.metadata.update({k: v for k, v in data.items() if k not in (key, "system", "instructions", "tools")})
    return chat.read_list(c, data[key])


def tool_definitions(raw: Any) -> list[dict[str, Any]]:
    """Tool definitions in any of the three wire formats (or MCP's `inputSchema`), as name, description,
    parameters and annotations."""
    out = []
    for t in raw if isinstance(raw, list) else []:
        if not isinstance(t, dict):
            continue
        fn = t.get("function") if isinstance(t.get("function"), dict) else t
        if not isinstance(fn.get("name"), str):
            continue
        params = fn.get("parameters", fn.get("input_schema", fn.get("inputSchema")))
        out.append({"name": fn["name"], "description": str(fn.get("description") or ""),
                    "parameters": params if isinstance(params, dict) else {},
                    "annotations": next((a for a in (t.get("annotations"), fn.get("annotations")) if isinstance(a, dict)),
                                        None)})  # MCP's, beside the function or inside it: logs write both
    return out


def _report(found: Any, say: Problem) -> Iterator[Conversation]:
    for c in found:
        for p in c.problems:
            say(f"{c.source}: conversation {c.index}: {p}")
        yield c
