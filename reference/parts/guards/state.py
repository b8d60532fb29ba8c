"""What the loop guard remembers: every call it saw, the current model step, and what it read so far.

Nothing here is recomputed from the whole history: the transcript reads only the messages added since the
last look, so the guard's work per step does not grow with the length of the run (issue 9-D).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from ...core.messages import AssistantMessage, Message, SystemMessage, ToolCall, UserMessage


@dataclass
class GuardedCall:
    """One tool call the model asked for, as the guard saw it."""

    step: int
    call: ToolCall
    action: str  # the fingerprint
    ran: bool = False
    result: Optional[str] = None  # the result fingerprint
    retryable_error: bool = False
    failed: bool = False  # it ran and the tool refused it or failed
    recheck: bool = False  # a repeat let through because the tool may change: judged by its result


@dataclass
class Step:
    """The model step whose calls the guard is seeing now."""

    number: int = 0  # model requests so far: the step these calls belong to (1-based, as in the ledger)
    turn: tuple[str, ...] = ()  # the ids of the calls the model asked for in this step
    actions: dict[str, str] = field(default_factory=dict)  # action -> id of its first call in this step
    new: int = 0  # values first seen in this step's results
    counts: bool = False  # a call of this step succeeded: only such steps count for no-progress
    flagged: bool = False  # the guard already intervened in this step (one lapse per turn)

    def end(self) -> None:
        """After the step: forget what it found; `number` and `turn` change when the next step starts."""
        self.new, self.counts, self.flagged = 0, False, False
        self.actions = {}


@dataclass
class Transcript:
    """The conversation as far as the guard needs it, read incrementally (messages are only appended)."""

    read: int = 0  # messages already read
    steps: int = 0  # assistant messages so far
    last_turn: tuple[str, ...] = ()  # the call ids of the latest assistant message
    user_texts: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # the model's last two non-empty texts
    _request: Optional[str] = None

    def catch_up(self, messages: Sequence[Message]) -> None:
        if len(messages) < self.read:  # a different conversation: start over
            self.__init__()  # type: ignore[misc]
        for m in messages[self.read:]:
            if isinstance(m, AssistantMessage):
                self.steps += 1
                self.last_turn = tuple(c.id for c in m.tool_calls)
                if m.text and m.text.strip():
                    self.said = [*self.said[-1:], m.text]
            elif isinstance(m, (UserMessage, SystemMessage)):  # the system prompt carries the user's profile too
                self.user_texts.append(m.text)
                self._request = None
        self.read = len(messages)

    @property
    def request(self) -> str:
        """What the user asked, with the system prompt (a home airport, an office city): joined once per new
        message, not once per call."""
        if self._request is None:
            self._request = "\n".join(self.user_texts)
        return self._request
