"""The kit's own exceptions, under one base.

A `HarnessError` is never a model's or a tool's doing: a request the real API would refuse, a
scenario that is malformed or too short, a grader pulling the plug. Loops must let these surface
instead of turning them into a polite stop (lesson 5's "the loop never crashes" is about what a
model or a tool does, not about the harness).

    HarnessError
    ├── ProtocolError    HTTP 400 from the service: the request broke the tool-calling protocol
    ├── ScenarioError    a scenario file that cannot be used (file, field, what was expected)
    ├── ScriptExhausted  the scripted model was called after its script ended
    └── RunawayLoop      the loop kept calling the model far past its step limit

    ProviderError        not a HarnessError: the model service failed (429, 500, 529, a timeout), which
    └── ProviderTimeout  a loop must handle like an SDK's APIStatusError / APITimeoutError

    LimitsRefused        a LOOPKIT_CHECK_* variable that is not a usable limit (`loopkit check`)
"""
from __future__ import annotations

from typing import Any, Callable


class HarnessError(Exception):
    """Base of the kit's own exceptions."""


ENVELOPES: dict[str, Callable[["ProtocolError"], dict[str, Any]]] = {}  # wire format name -> its error envelope


class ProtocolError(HarnessError):
    """HTTP 400 from the service: the request broke the tool-calling protocol.

    `str(err)` is the service's message text; `body` is the JSON error envelope it sends.
    """

    status_code = 400

    def __init__(self, wire: str, message: str, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.wire = wire
        self.message = message
        self.param = param
        self.code = code

    @property
    def body(self) -> dict[str, Any]:
        """The JSON error envelope the service sends, written by the wire format's own object
        (reference/wire/formats.py registers each one in ENVELOPES when the wire package is imported)."""
        return ENVELOPES[self.wire](self) if self.wire in ENVELOPES else {"error": {"message": self.message}}

    def __repr__(self) -> str:
        return f"ProtocolError({self.wire!r}, {self.message!r})"


class ScenarioError(HarnessError, ValueError):
    """A scenario file that cannot be used, with the file, the field and what was expected."""


class ScriptExhausted(HarnessError, RuntimeError):
    """The model was called after its script ended: the scenario, not the loop, is incomplete."""


class RunawayLoop(HarnessError, RuntimeError):
    """The loop kept calling the model far past its step limit; the grader pulled the plug."""


class LimitsRefused(ValueError):
    """A LOOPKIT_CHECK_* variable that does not hold a usable limit: one line, for the user."""


class ProviderError(Exception):
    """The model service failed: HTTP 429, 500, 529 overloaded, or the request timed out.

    Not a `HarnessError`: this is the provider's doing, which a loop must handle (retry within its
    budget, or stop with a degraded result), as it must handle an SDK's `APIStatusError` or
    `APITimeoutError` after the SDK's own retries. It carries what an SDK's exception carries:
    `status_code` (None for a timeout) and `retry_after` in seconds (None when the service sent none).
    Each wire format writes it in its service's envelope (`reference/wire/formats.py`, `provider_error`)."""

    TEXTS = {  # (status, message)
        "rate_limit": (429, "Rate limit reached for requests. Please try again later."),
        "server_error": (500, "The server had an error while processing your request. Sorry about that!"),
        "overloaded": (529, "Overloaded"),
        "timeout": (None, "Request timed out."),
    }

    def __init__(self, kind: str, retry_after: float | None = None):
        status, message = self.TEXTS[kind]
        super().__init__(f"{status or 'timeout'}: {message}")
        self.kind = kind
        self.status_code = status
        self.retry_after = retry_after
        self.message = message


class ProviderTimeout(ProviderError, TimeoutError):
    """The model request timed out (no HTTP status): what `APITimeoutError` is to an SDK."""

    def __init__(self, retry_after: float | None = None, timeout_seconds: float | None = None):
        super().__init__("timeout", retry_after)
        self.timeout_seconds = timeout_seconds  # how long the request hung
