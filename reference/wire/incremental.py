"""The request of a growing conversation, built and checked at a cost that does not grow with it.

A loop sends the whole history at every step, and the history only grows by appending. Converting
and checking all of it again at every step makes a run of n steps cost n² (a 5,000-step run took
minutes and gigabytes). `WireBuilder` remembers the messages it converted, their wire items and
where the protocol check stopped, and at the next request does only the new part:

- build: if the history starts with the messages already converted (compared by identity, or by
  value for an equal copy: the conversion depends on nothing else), only the new messages are
  converted, with the format's own `add_message` (what `to_request` does message after message).
  A history that was rewritten (a loop that trims or edits it) is converted again from the start;
- check: each format's `resume_check` walks on from the state the last passed check left, for the
  same request list (`resume_check` with no state is the full check, the same code);
- measure: an optional `measure(item)` (the token estimator's) is taken once per wire item.

The lists are append-only and shared between the requests built from them (a recorded request is
a view: a list and a length); when a new message changes the last wire item (Anthropic folds a
tool result into the user message of the results before it), a new list is started instead.
Equal to `to_request` and `check` of wire/protocol.py: tests/test_incremental.py compares them on
random conversations, rewritten histories included.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from ..core.messages import Message, ToolSpec
from .protocol import wire_module


@dataclass(frozen=True)
class Built:
    """One request: views on the builder's lists (this request is their first `n_messages`/`n_items`)."""

    wire: str
    messages: list[Message]
    n_messages: int
    items: list[dict[str, Any]]
    n_items: int
    system: Optional[str]  # Anthropic's top-level system text
    tools: list[dict[str, Any]]  # the tools in wire form (empty: no tools offered)
    measured: int  # the sum of `measure(item)` over the request's items (0 without a measure)

    def body(self) -> dict[str, Any]:
        """The request body, as `to_request` gives it (the item list is copied; the items are shared)."""
        system = [self.system] if self.system else []
        return wire_module(self.wire).request_body(self.items[:self.n_items], system, self.tools)

    def history(self) -> list[Message]:
        return self.messages[:self.n_messages]


class WireBuilder:
    """Builds (and checks) the requests of one conversation in one wire format, incrementally."""

    def __init__(self, wire: str, measure: Optional[Callable[[dict[str, Any]], int]] = None):
        self.wire = wire
        self.module = wire_module(wire)
        self.measure = measure
        self.rebuilds = 0  # times the history did not continue the last one (for tests and benchmarks)
        self._start()
        self._checked: Optional[tuple[list[dict[str, Any]], Any]] = None  # (item list, its check state)

    def _start(self) -> None:
        self._messages: list[Message] = []
        self._items: list[dict[str, Any]] = []
        self._sizes: list[int] = []
        self._measured = 0
        self._system: list[str] = []
        self._system_text: Optional[str] = None

    def build(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Built:
        known = len(self._messages)
        head = messages[:known]
        if len(head) < known or (head if isinstance(head, list) else list(head)) != self._messages:
            self._start()  # not a continuation: convert it all
            self.rebuilds += 1
            known = 0
        new = messages[known:]
        if new:
            self._add(new)
        return Built(self.wire, self._messages, len(self._messages), self._items, len(self._items),
                     self._system_text, self.module.wire_tools(tools), self._measured)

    def _add(self, new: Sequence[Message]) -> None:
        last = self._items[-1:]
        out, system = list(last), []  # the last item goes first: a new message may fold into it
        for m in new:  # nothing is kept before every new message converted (a TypeError leaves no trace)
            self.module.add_message(out, system, m)
        if last and out[0] is not last[0]:  # the last item was replaced: a new list, old requests keep theirs
            self._measured -= self._sizes[-1]
            self._items, self._sizes = self._items[:-1], self._sizes[:-1]
        else:
            out = out[1:] if last else out
        sizes = [self.measure(item) for item in out] if self.measure else [0] * len(out)
        self._items.extend(out)
        self._sizes.extend(sizes)
        self._measured += sum(sizes)
        self._messages.extend(new)
        if system:
            self._system = self._system + system
            self._system_text = "\n\n".join(self._system)

    def check(self, built: Built) -> None:
        """Raise ProtocolError as `check(built.body())` would; walk only what no earlier check walked."""
        state = None
        if self._checked is not None and self._checked[0] is built.items \
                and self._checked[1].resume_at <= built.n_items:
            state = self._checked[1]
        passed = self.module.resume_check(built.items, built.n_items, built.tools, state)  # raises, or passed
        self._checked = (built.items, passed)  # a refused request leaves the last passed state as it was
