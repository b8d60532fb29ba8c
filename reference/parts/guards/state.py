"""What the loop guard remembers: every call it saw, and where the current model step stands."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...core.messages import ToolCall


@dataclass
class GuardedCall:
    """One tool call the model asked for, as the guard saw it."""

    step: int
    call: ToolCall
    action: str  # the fingerprint
    ran: bool = False
    result: Optional[str] = None  # the result fingerprint
    retryable_error: bool = False


@dataclass
class Step:
    """The model step whose calls the guard is seeing now."""

    number: int = 0  # model requests so far: the step these calls belong to (1-based, as in the ledger)
    turn: tuple[str, ...] = ()  # the ids of the calls the model asked for in this step
    new: int = 0  # values first seen in this step's results
    counts: bool = False  # a call of this step succeeded: only such steps count for no-progress
    flagged: bool = False  # the guard already intervened in this step

    def end(self) -> None:
        """After the step: forget what it found; `number` and `turn` change when the next step starts."""
        self.new, self.counts, self.flagged = 0, False, False
