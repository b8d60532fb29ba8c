"""Lesson 3: what a tool result says, normalised, without its metadata.

Two results say the same thing when their payloads are equal after the same normalisation as the
arguments (fingerprint.canonical) and after dropping METADATA: the parts of a result that change on
every call whatever the world does. A stuck job answered with a fresh `checked_at` is still stuck; a
search answered with a new `request_id` is still the same answer. Metadata is never news either.

A key is metadata when (normalised: camelCase and dashes to snake_case, lower case)

- the tool declares it: `metadata: [checked_at, meta.server]` in the scenario's tool definition (a key
  name anywhere in the result, or a dotted path from the payload's top);
- it names a request or transport identifier, whatever its value: it is or ends in request_id, trace_id,
  span_id, correlation_id, traceparent, etag, nonce;
- it says how long this request took, and its value is a number: took, elapsed, latency, response_time,
  query_time, processing_time (with or without a unit: took_ms, latency_s);
- it names a moment AND its value has the shape of one: the key is timestamp, ts, now, server_time, as_of,
  last_checked, last_updated, last_modified, or ends in _at or _timestamp (a unit suffix aside:
  server_time_ms), and the value is a date-time
  ("2026-11-30T10:00:00Z", "2026-11-30 10:00"), a clock time ("10:00:05") or an epoch number. The shape
  matters: `status_at: "gate B"` is content. A date alone ("2026-12-01") is content too: it is what a
  booking or a forecast is about.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Iterable

from ...core.toolresult import read_result
from .fingerprint import canonical_data, clean_text

_ID_SUFFIXES = ("request_id", "trace_id", "span_id", "correlation_id", "traceparent", "etag", "nonce")
_MOMENT_NAMES = {"timestamp", "ts", "server_time", "as_of", "last_checked", "last_updated", "last_modified", "now"}
_TIMING_NAMES = {"took", "elapsed", "latency", "response_time", "query_time", "processing_time", "server_timing"}
_UNIT = re.compile(r"_(ms|us|ns|s|sec|secs|seconds|millis|epoch)$")
_MOMENT_SUFFIXES = ("_at", "_timestamp")
_TIME_SHAPED = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?$",
                          re.IGNORECASE)
_EPOCH_MIN = 10**8  # seconds since 1970 past 1973; milliseconds are bigger still
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

Declared = frozenset  # the metadata keys a tool declares


def key_name(key: str) -> str:
    """'checkedAt' / 'Checked-At' / 'checked_at' -> 'checked_at'."""
    return _CAMEL.sub("_", clean_text(str(key))).replace("-", "_").replace(" ", "_").lower()


def is_metadata(key: str, value: Any, path: str = "", declared: Iterable[str] = ()) -> bool:
    """The rule above, for one key of a result object (`path`: its dotted path from the top)."""
    name = key_name(key)
    if name in declared or path in declared:
        return True
    if name.endswith(_ID_SUFFIXES):
        return True
    base = _UNIT.sub("", name)  # server_time_ms is server_time in milliseconds
    if base in _TIMING_NAMES:
        return isinstance(value, (int, float)) and not isinstance(value, bool)  # how long this request took
    if base in _MOMENT_NAMES or name.endswith(_MOMENT_SUFFIXES) or base.endswith(_MOMENT_SUFFIXES):
        if isinstance(value, bool):
            return False
        if isinstance(value, (int, float)):
            return value >= _EPOCH_MIN
        return isinstance(value, str) and bool(_TIME_SHAPED.match(value.strip()))
    return False


def without_metadata(payload: Any, declared: Iterable[str] = (), path: str = "") -> Any:
    """The payload with every metadata key dropped, at any depth."""
    declared = declared if isinstance(declared, (set, frozenset)) else frozenset(declared)
    if isinstance(payload, dict):
        out = {}
        for key, value in payload.items():
            here = f"{path}.{key_name(key)}" if path else key_name(key)
            if not is_metadata(key, value, here, declared):
                out[key] = without_metadata(value, declared, here)
        return out
    if isinstance(payload, list):
        return [without_metadata(v, declared, path) for v in payload]
    return payload


def parse_result(content: str) -> tuple[bool, Any]:
    """(ok, payload) of a tool result, as `read_result` reads it; plain text comes back normalised."""
    ok, payload = read_result(content)
    return ok, clean_text(payload) if payload is content else payload  # `content` itself: it was not JSON


def result_fingerprint(content: str, is_error: bool = False, metadata: Iterable[str] = ()) -> str:
    """A short hash of the normalised result without metadata: equal when two results say the same thing."""
    ok, payload = parse_result(content)
    return payload_fingerprint(ok and not is_error, without_metadata(payload, metadata))


def payload_fingerprint(ok: bool, payload: Any) -> str:
    """The same, for a payload already parsed and without its metadata."""
    body = json.dumps([ok, canonical_data(payload)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(body.encode("utf-8")).hexdigest()[:12]


def leaf_values(payload: Any, key: str = "") -> set[str]:
    """The entities and values in a result: every leaf, normalised (booleans with their key)."""
    if isinstance(payload, dict):
        return set().union(*(leaf_values(v, k) for k, v in payload.items())) if payload else set()
    if isinstance(payload, list):
        return set().union(*(leaf_values(v, key) for v in payload)) if payload else set()
    if payload is None or payload == "":
        return set()
    if isinstance(payload, bool):
        return {f"{key}={payload}"}
    return {json.dumps(canonical_data(payload), ensure_ascii=False)}


def is_empty(payload: Any) -> bool:
    """Nothing in it: None, "", [], {}, or containers of those ({"results": []})."""
    return not leaf_values(payload)


def news(content: str, is_error: bool, seen: Iterable[str], metadata: Iterable[str] = ()) -> set[str]:
    """The values this result adds to what the run had already seen (errors and metadata add nothing)."""
    ok, payload = parse_result(content)
    if is_error or not ok:
        return set()
    seen = seen if isinstance(seen, (set, frozenset)) else set(seen)
    return {v for v in leaf_values(without_metadata(payload, metadata)) if v not in seen}  # not `- seen`: no copy
