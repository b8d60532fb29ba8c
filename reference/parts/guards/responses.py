"""What belongs to the response rather than to the answer: a failure by its protocol's own rule, and the
response's own clock, as the answers show it (results.py uses both)."""
from __future__ import annotations

from typing import Any

from ...core.canonical import clean_text
from ...core.toolresult import read_result


def parse_result(content: str) -> tuple[bool, Any]:
    """(ok, payload) of a tool result, as `read_result` reads it; plain text comes back normalised. An
    object that is an error response by its own format's rule fails too (`is_error_envelope`)."""
    ok, payload = read_result(content)
    if ok and isinstance(payload, dict) and is_error_envelope(payload):
        return False, payload
    return ok, clean_text(payload) if payload is content else payload  # `content` itself: it was not JSON


def is_error_envelope(body: dict) -> bool:
    """An error and nothing else, by the format's own rule: JSON-RPC 2.0's `error` without a `result`; an
    object whose one member is `error` (the "data or error" envelope of Google's JSON style guide, Stripe's);
    GraphQL's `errors` without `data`, or one GraphQL error (`message` with its `extensions`, no `data`).
    A resource that carries an `error` beside its state (`{"state": "failed", "error": "OOM"}`) is an answer."""
    if not (body.get("error") or body.get("errors")) or body.get("data") is not None:
        return False
    if "jsonrpc" in body or set(body) == {"error"}:
        return "result" not in body
    return bool(body.get("errors")) or ("message" in body and isinstance(body.get("extensions"), dict))


def owned_moments(before: tuple[str, dict[str, Any]], now: tuple[str, dict[str, Any]]) -> set[str]:
    """The moments two answers to one call, each (fingerprint without moments, moments), show to be the
    resource's own: those that moved together with the rest of the answer (a run's `updated_at` beside its
    status). One that alone moved stays the response's: a stuck job with a fresh `checked_at` is stuck."""
    (was, then), (is_, moments) = before, now
    return {k for k, v in moments.items() if k in then and then[k] != v} if was != is_ else set()
