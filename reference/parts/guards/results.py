"""Lesson 3: what a tool result says, normalised, without its metadata.

Two results say the same thing when their payloads are equal after the arguments' normalisation and without
METADATA, the parts that change on every call whatever the world does (a stuck job answered with a fresh
`checked_at` is still stuck; a new `request_id` is not a new answer); metadata is never news either. A key
(normalised: camelCase and dashes to snake_case, lower case) is metadata when
- the tool declares it: `metadata: [checked_at, meta.server]` (a key name anywhere, or a dotted path);
- it names a request or transport identifier, whatever its value: it is or ends in request_id, trace_id, span_id,
  correlation_id, traceparent, etag, nonce; or it says how long this request took, and its value is a number:
  took, elapsed, latency, response_time, query_time, processing_time (with or without a unit: took_ms, latency_s);
- its value is a moment by the standard's form, an RFC 3339 date-time, whatever its key; or, as the last resort
  for forms no standard fixes, the key names a moment (timestamp, ts, now, server_time, as_of, last_checked,
  last_updated, last_modified, or ends in _at, _ts or _timestamp) and the value is a clock time or an epoch
  number (`status_at: "gate B"` and a date alone are content) - UNTIL the answers show it is the resource's own:
  a moment that moved together with the rest of an answer to the same call is content from then on
  (`owned_moments`). The guard reads a date-time known by its form alone the other way round: content (a
  meeting's `start`) until it moved alone across identical calls (a report's `generated`).
Timings and moments that are the whole answer (a latency probe's `{"latency_ms": 40}`) are the answer itself.
"""
from __future__ import annotations

import hashlib
import re
from json.encoder import encode_basestring
from typing import Any, Iterable, Optional

from ...core import jsontext
from ...core.canonical import _number, canonical_data, clean_text
from .responses import is_date_time, owned_moments, parse_result  # noqa: F401  (re-exported: the guard's readers import them here)
from .wording import unquoted

_ID_SUFFIXES = ("request_id", "trace_id", "span_id", "correlation_id", "traceparent", "etag", "nonce")
_MOMENT_NAMES = {"timestamp", "ts", "server_time", "as_of", "last_checked", "last_updated", "last_modified", "now"}
_TIMING_NAMES = {"took", "elapsed", "latency", "response_time", "query_time", "processing_time", "server_timing"}
_UNIT = re.compile(r"_(ms|us|ns|s|sec|secs|seconds|millis|epoch)$")
_MOMENT_SUFFIXES = ("_at", "_ts", "_timestamp")
_TIME_SHAPED = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?$", re.I)
_EPOCH_MIN, _CAMEL = 10**8, re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # epoch: seconds past 1973 (milliseconds: more)
# json.dumps(x, sort_keys=True, ensure_ascii=False) and (x, ensure_ascii=False) for a canonical tree just built,
# the encoder made once (reference/core/jsontext.py); immutable, safe to share between threads.
_sorted_json, _plain_json = jsontext.dumps(ensure_ascii=False, sort_keys=True), jsontext.dumps(ensure_ascii=False)

Declared = frozenset  # the metadata keys a tool declares


def key_name(key: str) -> str:
    """'checkedAt' / 'Checked-At' / 'checked_at' -> 'checked_at'."""
    return _CAMEL.sub("_", clean_text(str(key))).replace("-", "_").replace(" ", "_").lower()


def is_metadata(key: str, value: Any, path: str = "", declared: Iterable[str] = ()) -> bool:
    """The rule above, for one key of a result object (`path`: its dotted path from the top)."""
    name = key_name(key)
    if name in declared or path in declared:
        return True
    return _shaped(_kind(name) or ("moment" if is_date_time(value) else ""), value)


def _kind(name: str) -> str:
    """What a normalised key name alone says: "id" (always metadata), "timing" or "moment" (metadata when the
    value has the shape of one), "" (content)."""
    if name.endswith(_ID_SUFFIXES):
        return "id"
    base = _UNIT.sub("", name)  # server_time_ms is server_time in milliseconds
    if base in _TIMING_NAMES:
        return "timing"
    if base in _MOMENT_NAMES or name.endswith(_MOMENT_SUFFIXES) or base.endswith(_MOMENT_SUFFIXES):
        return "moment"
    return ""


def is_moment_name(key: Any) -> bool:
    """Does a key name a moment (timestamp, finished_at, event_ts...), whatever its value?"""
    return _kind(key_name(key)) == "moment"


def _shaped(kind: str, value: Any) -> bool:
    """Is a value under a key of this kind metadata?"""
    if kind == "id":
        return True
    if kind == "timing":
        return isinstance(value, (int, float)) and not isinstance(value, bool)  # how long this request took
    if kind == "moment":
        if isinstance(value, bool):
            return False
        if isinstance(value, (int, float)):
            return value >= _EPOCH_MIN
        return isinstance(value, str) and bool(_TIME_SHAPED.match(value.strip()))
    return False


def without_metadata(payload: Any, declared: Iterable[str] = (), path: str = "", whole: Any = None) -> Any:
    """The payload with every metadata key dropped, at any depth, but for the `whole_answer`."""
    declared = declared if isinstance(declared, (set, frozenset)) else frozenset(declared)
    whole = whole_answer(payload, declared) if whole is None else whole
    if isinstance(payload, dict):
        out = {}
        for key, value in payload.items():
            name = key_name(key)
            here = f"{path}.{name}" if path else name
            if not is_metadata(key, value, here, declared) or name in whole:  # the whole answer: all timed
                out[key] = without_metadata(value, declared, here, whole)
        return out
    if isinstance(payload, list):
        return [without_metadata(v, declared, path, whole) for v in payload]
    return payload


def whole_answer(payload: Any, declared: frozenset) -> frozenset:
    """Timings and moments that are the whole answer (a probe's `{"latency_ms": 40}`): never metadata."""
    names = {key_name(k): v for k, v in payload.items()} if isinstance(payload, dict) else {}
    kinds = {n: _kind(n) or ("moment" if is_date_time(v) else "") for n, v in names.items()}
    timed = all(kinds[n] in ("moment", "timing") and _shaped(kinds[n], v) and n not in declared
                for n, v in names.items())
    return frozenset(names) if names and timed else frozenset()


def result_fingerprint(content: str, is_error: bool = False, metadata: Iterable[str] = ()) -> str:
    """A short hash of the normalised result without metadata: equal when two results say the same thing."""
    ok, payload = parse_result(content)
    return payload_fingerprint(ok and not is_error, without_metadata(payload, metadata))


def payload_fingerprint(ok: bool, payload: Any) -> str:
    """The same, for a payload already parsed and without its metadata."""
    return _hashed(ok, canonical_data(payload))


def _hashed(ok: bool, canonical: Any) -> str:
    """`json.dumps([ok, canonical], sort_keys=True, ensure_ascii=False)`, hashed (the encoder is made once)."""
    return hashlib.sha1(_sorted_json([ok, canonical]).encode("utf-8")).hexdigest()[:12]


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
    return {_leaf_text(payload)}


def _leaf_text(value: Any) -> str:
    """`json.dumps(canonical_data(value), ensure_ascii=False)` of a leaf, without an encoder for a string or an int."""
    kind = type(value)
    if kind is str:
        return encode_basestring(clean_text(value))  # what json.dumps does with a string, ensure_ascii off
    if kind is int:
        return int.__repr__(value)  # and with an int
    return _plain_json(canonical_data(value))


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


class ResultReader:
    """`without_metadata`, `payload_fingerprint` and `leaf_values` of a result in one walk, the same values
    (tests/test_guard_fast_paths.py compares them). What a key says is worked out once and kept: a tool's keys
    repeat from one result to the next. One reader per guard: the table is not shared."""

    KEYS_KEPT = 4096  # results keyed by ids could make the table grow with the run: past this, keys are not kept

    def __init__(self) -> None:
        self._keys: dict[Any, tuple[str, str, str]] = {}
        self._owned: frozenset = frozenset()
        self._moments: Optional[dict[str, Any]] = None

    def read(self, ok: bool, payload: Any, declared: Iterable[str] = (), values: bool = True,
             owned: frozenset = frozenset(), moments: Optional[dict[str, Any]] = None) -> tuple[str, set[str]]:
        """(payload_fingerprint(ok, content), leaf_values(content) or, if not `values`, an empty set), where
        content is without_metadata(payload, declared) but for the moments in `owned` (owned_moments); the
        moments left out go to `moments` (key name -> value)."""
        declared = declared if isinstance(declared, (set, frozenset)) else frozenset(declared)
        found: set[str] = set()
        self._owned, self._moments = owned | whole_answer(payload, declared), moments
        canonical = self._walk(payload, declared, "", "", found if values else None)
        return _hashed(ok, canonical), found

    def _key(self, key: Any) -> tuple[str, str, str]:
        """(key_name, its kind, the key as canonical_data writes it)."""
        known = self._keys.get(key)
        if known is None:
            name, clean = key_name(key), clean_text(key)
            known = (name, _kind(name), clean)
            if type(key) is str and len(self._keys) < self.KEYS_KEPT:  # JSON's keys (1 and True are one dict key)
                self._keys[key] = known
        return known

    def _walk(self, value: Any, declared: frozenset, path: str, key: Any, found: Optional[set[str]]) -> Any:
        """canonical_data of the value without its metadata; its leaf values added to `found`. `path` is the
        metadata path (without_metadata's, kept only when the tool declares metadata), `key` the raw key
        leaf_values gives a boolean."""
        if isinstance(value, str):  # the commonest leaf first
            text = clean_text(value)
            if found is not None and value != "":
                found.add(encode_basestring(text))  # _leaf_text(value), the text cleaned once
            return text
        if isinstance(value, dict):
            out = {}
            keys = self._keys
            for k, v in value.items():
                known = keys.get(k)
                name, kind, clean = self._key(k) if known is None else known
                kind = kind or ("moment" if is_date_time(v) else "")
                here = (f"{path}.{name}" if path else name) if declared else ""
                if ((declared and (name in declared or here in declared)) or (kind and _shaped(kind, v))) \
                        and not (kind in ("moment", "timing") and name in self._owned):
                    if kind == "moment" and self._moments is not None:
                        self._moments[name] = v
                    continue  # metadata: neither part of the answer nor news
                out[clean] = self._walk(v, declared, here, k, found)
            return out
        if isinstance(value, list):
            return [self._walk(v, declared, path, key, found) for v in value]
        if found is not None and not (value is None or value == ""):
            found.add(f"{key}={value}" if isinstance(value, bool) else _leaf_text(value))
        return _number(value) if isinstance(value, (int, float)) else value


def argument_leaves(arguments: Any, key: str = "") -> list[tuple[str, Any]]:
    """(key name, canonical value) of every leaf of a call's arguments, at any depth."""
    if isinstance(arguments, dict):
        return [leaf for k, v in arguments.items() for leaf in argument_leaves(v, key_name(k))]
    if isinstance(arguments, list):
        return [leaf for v in arguments for leaf in argument_leaves(v, key)]
    return [(key, arguments)] if arguments is not None else []


def without_echoes(payload: Any, arguments: Any, spelled: Any = None) -> Any:
    """The payload without what the call put there: an entry whose value is one of its text arguments, or whose key
    and value are one of its arguments (`"offset": 20`); in plain text, a text argument over 3 characters, in its
    canonical form or as the model spelled it, case aside."""
    leaves = argument_leaves(arguments)
    if isinstance(payload, str):  # an answer in text: the wording it quotes back is the question, not the answer
        said = [*leaves, *argument_leaves(spelled)]
        return unquoted(payload, [v for _, v in said if isinstance(v, str) and len(v.strip()) > 3])
    if not leaves:
        return payload
    texts = {clean_text(v).casefold() for _, v in leaves if isinstance(v, str) and v.strip()}
    pairs = {(k, _number(v)) for k, v in leaves if isinstance(v, (int, float, str))}

    def echoed(key: Any, value: Any) -> bool:
        if isinstance(value, str):
            return clean_text(value).casefold() in texts
        return isinstance(value, (int, float)) and (key_name(key), _number(value)) in pairs

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if not echoed(k, v)}
        return [walk(v) for v in value] if isinstance(value, list) else value
    return walk(payload)


def subject_of(arguments: Any, positions: bool = True) -> str:
    """What a call asks about: its canonical arguments without free wording (text of two words or more), so
    that three phrasings of one search share a subject and four SKUs have four; without `positions`, without
    numbers too (a page, an offset say where in a list, not what about) and case-folded, so that pages 2 and 3
    share one, and "Kubernetes" and "kubernetes" do."""
    def left_out(value: Any) -> bool:
        wording = isinstance(value, str) and len(value.split()) >= 2
        return wording or not positions and isinstance(value, (int, float)) and not isinstance(value, bool)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if not left_out(v)}
        if isinstance(value, list):
            return [walk(v) for v in value if not left_out(v)]
        return value if positions or not isinstance(value, str) else value.casefold()
    return _sorted_json(walk(arguments))


def found_nothing(payload: Any) -> bool:
    """An answer that found nothing: an empty list or object in it, and nothing else but zeros, falses and
    nulls (`{"results": [], "total": 0}`). `{"in_stock": false}` found something: an answer."""
    empty_container = False

    def walk(value: Any) -> bool:
        nonlocal empty_container
        if isinstance(value, (dict, list)):
            if not value:
                empty_container = True
            return all(walk(v) for v in (value.values() if isinstance(value, dict) else value))
        return value in (None, "", 0, False)
    return walk(payload) and empty_container

