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
"""
from __future__ import annotations

from typing import Any


class HarnessError(Exception):
    """Base of the kit's own exceptions."""


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
        if self.wire == "anthropic":
            return {"type": "error", "error": {"type": "invalid_request_error", "message": self.message}}
        return {"error": {"message": self.message, "type": "invalid_request_error",
                          "param": self.param, "code": self.code}}

    def __repr__(self) -> str:
        return f"ProtocolError({self.wire!r}, {self.message!r})"


class ScenarioError(HarnessError, ValueError):
    """A scenario file that cannot be used, with the file, the field and what was expected."""


class ScriptExhausted(HarnessError, RuntimeError):
    """The model was called after its script ended: the scenario, not the loop, is incomplete."""


class RunawayLoop(HarnessError, RuntimeError):
    """The loop kept calling the model far past its step limit; the grader pulled the plug."""
