"""The kit's own JSONL traces (reference/harness/trace.py) as conversations: one per `run` record.

The trace is not a message list, so the message index counts the entries this reader makes of it, in
order: the system prompt and the user's request (when content was captured, else stand-ins of their
length), then per model step its assistant turn followed by one entry per tool result the model read.
The trace's tool definitions come along (descriptions, annotations, the kit's `volatile`).
"""
from __future__ import annotations

from typing import Any, Optional

from ...core.messages import SystemMessage, UserMessage
from .conversation import Conversation, Pairing

RECORD_KINDS = ("run", "step", "tool", "results", "event", "error", "finish")


def is_record(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") in RECORD_KINDS and ("step" in obj or obj.get("kind") == "run")


class TraceReader:
    """Feed records one at a time; a conversation comes out at each `finish` or at the next `run`."""

    def __init__(self, source: str) -> None:
        self.source, self.count = source, 0
        self.c: Optional[Conversation] = None
        self.p: Optional[Pairing] = None
        self.entry = 0

    def feed(self, record: dict[str, Any]) -> Optional[Conversation]:
        kind = record["kind"]
        done = None
        if kind == "run":
            done = self.close()
            self._start(record)
        elif self.c is None or self.p is None:
            raise ValueError(f"a {kind!r} record before any 'run' record")
        elif kind == "step":
            calls = [(c.get("id"), c["name"], c.get("arguments", "{}")) for c in record.get("tool_calls") or []]
            self.c.tokens[self.entry] = int(record.get("input_tokens", 0)) + int(record.get("output_tokens", 0))
            self.p.say(self.entry, record.get("text"), calls)
            self.entry += 1
        elif kind == "results":
            for r in record.get("results") or []:
                self.p.answer(self.entry, r.get("call_id"), r.get("content", ""), r.get("status") == "error")
                self.entry += 1
        elif kind == "finish":
            self.c.metadata.update(stop_reason=record.get("stop_reason"), loop=record.get("loop"))
            done = self.close()
        return done

    def _start(self, run: dict[str, Any]) -> None:
        self.c = Conversation(self.source, self.count, "kit-trace", id=run.get("scenario"))
        self.count += 1
        self.c.metadata = {"scenario": run.get("scenario"), "intent": run.get("intent"), "seed": run.get("seed")}
        self.c.tools = [t for t in run.get("tools") or [] if isinstance(t, dict) and "name" in t]
        self.p = Pairing(self.c)
        chars = run.get("prompt_chars") or {}
        system = run.get("system") if run.get("capture_content") else "." * int(chars.get("system", 0))
        user = run.get("user") if run.get("capture_content") else "." * int(chars.get("user", 0))
        self.p.add(SystemMessage(system or ""), 0)
        self.p.add(UserMessage(user or ""), 1)
        self.entry = 2

    def close(self) -> Optional[Conversation]:
        c, self.c, self.p = self.c, None, None
        return c
