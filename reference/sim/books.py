"""What the scenario's tools really returned: the books a cooperative scripted model reads.

Rule, in one sentence: *a cooperative model changes course when what it received for a call is not
what the tool returned for that call* — the tool was not run for it (the loop withheld it or answered
from a cache), or its output was replaced or added to. That is decided from these books, never from the
wording of what the loop sent, so an intervention in any words, from any loop or framework, is heard.
Legitimate case it must not fire on: a loop that forwards the tool's output with other spacing or key
order, or only the payload the tool returned.

The books count runs per tool and arguments rather than per call id, because a loop or a framework may
run a tool without the model's call id (a plain function call, a framework's own tool wrapper): the
n-th result the model receives for the same tool and arguments is the tool's own output when the tool
has run at least n times with them and one of those runs produced it.

A run may raise instead of returning (a timeout, an internal error, an HTTP error raised by the tool's
client): the books keep what it raised. A run that raised has no output to forward, so what a loop or a
framework reports for it is its report of the failure, the tool's own: the exception's text in the
framework's words, or a fixed text that hides it (the OpenAI Agents SDK's default tool error function).
"""
from __future__ import annotations

import json
from typing import Any

_NONE = object()


class _Raised(str):
    """A run that raised: no output (an empty text, never equal to one a tool returned)."""


RAISED = _Raised("")


def call_key(name: str, arguments: Any) -> str:
    """One call's tool and arguments, in one spelling: arguments as JSON with sorted keys. Not the guard's
    canonical form (core/canonical.py): these books ask which run produced an output, so two spellings the
    guard would call the same call are two runs here."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return f"{name}\n{arguments}"
    return f"{name}\n{json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)}"


def _value(text: str) -> Any:
    """JSON text is compared by value (spacing and key order do not matter), other text stripped."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text.strip()


def _forwards(received: Any, content: str) -> bool:
    """Is `received` this output as the tool gave it, or only its payload?"""
    own = _value(content)
    if received == own:
        return True
    payload = own.get("data", _NONE) if isinstance(own, dict) and own.get("ok") is True else _NONE
    return payload is not _NONE and (received == payload or (isinstance(payload, str) and received == payload.strip()))


class ToolOutputs:
    """Every output the scenario's tools produced, by tool and arguments, in order."""

    def __init__(self) -> None:
        self._by_call: dict[str, list[str]] = {}
        self._raised: dict[str, list[str]] = {}  # per call key: the messages of the exceptions its runs raised

    def record(self, name: str, args: Any, content: str) -> None:
        self._by_call.setdefault(call_key(name, args), []).append(content)

    def record_raised(self, name: str, args: Any, message: str, *, returned: bool = False) -> None:
        """A run raised `message`; `returned`: that run's output is already recorded (the exception was
        raised from it, as a client raises on an HTTP error status), so it is not counted twice."""
        key = call_key(name, args)
        runs = self._by_call.setdefault(key, [])
        if returned and runs:
            runs[-1] = RAISED
        else:
            runs.append(RAISED)
        self._raised.setdefault(key, []).append(message)

    def raised(self, name: str, args: Any) -> list[str]:
        return list(self._raised.get(call_key(name, args), []))

    def is_own_output(self, key: str, received: str, nth: int) -> bool:
        """Is `received`, the `nth` result (1-based) the model got for this tool and arguments, the tool's own?"""
        produced = self._by_call.get(key, [])
        if len(produced) < nth:  # fewer runs than results: this one was not run
            return False
        if received in produced:
            return True
        if any(message.strip() and message.strip() in received for message in self._raised.get(key, [])):
            return True
        if produced[nth - 1] is RAISED:  # the run answering this result raised: any report of it is its own
            return True
        got = _value(received)
        return any(_forwards(got, content) for content in produced)
