"""What belongs to the response rather than to the answer: a failure by its protocol's own rule, the
response's own clock, and its own count of calls, as the answers show them (results.py and the guard use them)."""
from __future__ import annotations

import re
from typing import Any

from ...core.canonical import clean_text
from ...core.toolresult import read_result

# RFC 3339's date-time (section 5.6, ISO 8601's extended form, what JSON Schema's `format: date-time` names)
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


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


def without_call_counts(content: Any, run: int, counted: set[str]) -> tuple[Any, set[str]]:
    """A number that rose by one with each call of the tool, equal to the call's own number, from calls whose
    arguments differ in numbers alone, counts the calls, not the world (a thinking tool's
    `thoughtHistoryLength` for one thought sent again): it is the response's, never news; the guard passes
    `counted` empty when the words changed (hosts h01, h02... with loads 1, 2... are answers). Returns the
    content without the top-level members `counted` says did so last time and that still do, and the members
    that equal `run` now (the guard keeps them for the next call). `run` is this call's number, 1-based, among
    the tool's answered calls. A total that happens to equal the call number once stays content."""
    if not isinstance(content, dict):
        return content, set()
    now = {k for k, v in content.items() if type(v) is int and v == run}
    if not counted & now:
        return content, now
    return {k: v for k, v in content.items() if k not in counted or k not in now}, now


def still_to_come(content: Any, is_moment) -> bool:
    """Does an answer name a moment it has no value for yet (`"finished_at": null` beside a run's `started_at`)?
    Then the resource says of itself that something is still to happen: asking again is how to see it happen.
    `is_moment(key)`: does a key name a moment (results.py's rule for names)."""
    if isinstance(content, dict):
        return any((v is None and is_moment(k)) or still_to_come(v, is_moment) for k, v in content.items())
    return isinstance(content, list) and any(still_to_come(v, is_moment) for v in content)


def reports(content: Any) -> bool:
    """Does an answer carry content, more than an acknowledgement? An acknowledgement says that something was
    done and names it: flags, nulls and single tokens (an id it created, a status word), as
    `{"success": true, "record_id": "w_101"}` does. Content is what a read brings: text of more than one word, a
    measure (a number with a fraction), or anything that holds one (a log's last lines, a page, an average).
    `content`: the answer with the call's own echoes removed."""
    if isinstance(content, str):
        return len(content.split()) > 1
    if isinstance(content, float):
        return not content.is_integer()
    if isinstance(content, dict):
        return any(reports(v) for v in content.values())
    if isinstance(content, list):
        return any(reports(v) for v in content)
    return False


def is_date_time(value: Any) -> bool:
    """Is a value a moment by its standard form, an RFC 3339 date-time, whatever its key names? Then it is
    presumed the response's clock, as a key named like a moment is (results.py), until the answers show that
    it moved with the rest of them (`owned_moments`). A date alone ("2026-12-01") is content."""
    return type(value) is str and len(value) >= 20 and bool(_DATE_TIME.match(value))
