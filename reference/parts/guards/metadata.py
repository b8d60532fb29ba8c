"""Lesson 3: a result's metadata, the parts of it that are never its answer.

Two results say the same thing when their payloads are equal after the arguments' normalisation and without
METADATA, the parts that change on every call whatever the world does (a stuck job answered with a fresh
`checked_at` is still stuck; a new `request_id` is not a new answer); metadata is never news either. A key
(normalised: camelCase and dashes to snake_case, lower case) is metadata when
- the tool declares it: `metadata: [checked_at, meta.server]` (a key name anywhere, or a dotted path);
- it moved alone across identical calls of the tool as only a response's own member does, whatever its name
  (`moved_alone`, learned per tool in books.py as date-times are): the rest of the answer stayed the same and it
  is a token of letters and digits no earlier result showed (a request id, an edge server's ray id), or a number
  that moved back the other way since its last move (a timing: 41, 37, 52); across calls of the tool in other
  words, whose answers were otherwise the same, only such a number (a timing of a reworded search), since a token
  there is the other thing's own (two records differing only in their ids). Once known, it is left out of every
  comparison of the tool's answers, those got before too (books.py), so rewordings that got the same hits are one
  answer whatever their timing is named. Not a count that only grows beside an unchanged state (a job's rows
  written), nor a word (a status, a phase that moved on): those are the answer;
- it is a position a page gave, whatever its name: a token of letters and digits outside the page's lists that moved
  between two pages, the later one sent with a cursor the earlier gave (the next cursor, the next page's link),
  learned per tool (`positions`, books.py). The rows a page lists are its answer, never positions: pages of new
  rows differ by them, while a cursor followed to the row the page before listed answers alike;
- it is a request or transport identifier a standard names, whatever its value: W3C Trace Context's traceparent,
  OpenTelemetry's trace_id and span_id, RFC 9110's ETag; or, as the last resort for a name seen once, before its
  tool's answers can show how it moves, the conventions request_id, correlation_id and nonce; or it says how long
  this request took and its value is a number: W3C's Server-Timing, or the conventions took, elapsed, latency,
  response_time, query_time, processing_time (with or without a unit: took_ms, latency_s);
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

import re
from typing import Any, Callable, Iterable

from ...core.canonical import clean_text
from .responses import is_date_time

# Standards' names (traceparent, trace_id, span_id, etag, server_timing), then the conventions kept as the last resort
# for a member seen once; any other is known by how it moves (`moved_alone`).
_ID_SUFFIXES = ("trace_id", "span_id", "traceparent", "etag", "request_id", "correlation_id", "nonce")
_MOMENT_NAMES = {"timestamp", "ts", "server_time", "as_of", "last_checked", "last_updated", "last_modified", "now"}
_TIMING_NAMES = {"server_timing", "took", "elapsed", "latency", "response_time", "query_time", "processing_time"}
_UNIT = re.compile(r"_(ms|us|ns|s|sec|secs|seconds|millis|epoch)$")
_MOMENT_SUFFIXES = ("_at", "_ts", "_timestamp")
_TIME_SHAPED = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?$", re.I)
_EPOCH_MIN, _CAMEL = 10**8, re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # epoch: seconds past 1973 (milliseconds: more)


def key_name(key: str) -> str:
    """'checkedAt' / 'Checked-At' / 'checked_at' -> 'checked_at'."""
    return _CAMEL.sub("_", clean_text(str(key))).replace("-", "_").replace(" ", "_").lower()


def is_metadata(key: str, value: Any, path: str = "", declared: Iterable[str] = ()) -> bool:
    """The rule above, for one key of a result object (`path`: its dotted path from the top)."""
    name = key_name(key)
    if name in declared or path in declared:
        return True
    return shaped(kind_of(name) or ("moment" if is_date_time(value) else ""), value)


def kind_of(name: str) -> str:
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
    return kind_of(key_name(key)) == "moment"


def shaped(kind: str, value: Any) -> bool:
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
    kinds = {n: kind_of(n) or ("moment" if is_date_time(v) else "") for n, v in names.items()}
    timed = all(kinds[n] in ("moment", "timing") and shaped(kinds[n], v) and n not in declared
                for n, v in names.items())
    return frozenset(names) if names and timed else frozenset()


def moved_alone(before: Any, now: Any, declared: Iterable[str], fresh: Callable[[str], bool],
                turned: dict[str, int]) -> frozenset[str]:
    """The members two answers to one call show to be the response's, by how they moved, whatever their names: the
    answers, without what is already known to be metadata, are alike but for scalar members, none of them a word
    (a status that moved is the answer moving) and at least one other value stays; when every one of them is a
    token of letters and digits together that no earlier result of the run showed (`fresh`: a request id, an edge's
    ray id: `a1f3`, then `b7c2`) or a number that moved back the other way since its last move (a timing: 41, then
    37, then 52; `turned` keeps each member's last direction, by dotted path), they are returned, as dotted paths
    (`declared`'s form). A count that only grows (a job's progress, a retried job's new id) moved the answer, and
    so did a phase that moved on (`download`, then `extract`): nothing beside them is learned."""
    declared = frozenset(declared)
    was, is_ = without_metadata(before, declared), without_metadata(now, declared)
    moved: dict[str, tuple[Any, Any]] = {}
    kept: list[bool] = []

    def walk(x: Any, y: Any, path: str) -> bool:
        if isinstance(x, dict) and isinstance(y, dict):
            return x.keys() == y.keys() and all(walk(x[k], y[k], f"{path}.{key_name(k)}" if path else key_name(k))
                                                for k in x)
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(walk(u, v, path) for u, v in zip(x, y))
        if x == y:
            kept.append(x not in (None, "", [], {}))
            return True
        if _a_token(x) and _a_token(y) or a_number(x) and a_number(y):
            moved[path] = (x, y)
            return True
        return False
    if not walk(was, is_, "") or not moved or not any(kept):
        return frozenset()
    found = set()
    for path, (x, y) in moved.items():
        if isinstance(y, str):
            if fresh(y):
                found.add(path)
            continue
        way = 1 if y > x else -1
        if turned.get(path, way) != way:
            found.add(path)
        turned[path] = way
    return frozenset(found) if len(found) == len(moved) else frozenset()  # else the answer moved: a new job's id


def positions(before: Any, now: Any, sent: Iterable[Any], declared: Iterable[str]) -> tuple[frozenset[str], set[str]]:
    """The members two pages show to be positions, not answers: the call that got `now` sent (`sent`: its argument
    values) a token `before` gave outside its lists (a cursor followed), and every scalar member outside the lists
    that moved between the pages is a token of letters and digits (the next cursor, the next page's link), returned
    as dotted paths (`declared`'s form), with the tokens followed. The rows a page lists are its answer and are never learned: a next page with
    new members differs by them; one that lists the member the last page listed, under a new cursor, answers alike.
    Not a page that moved a word or a number beside its cursor (a total that grew): that page's answer moved; nor
    answers that list nothing (a record whose `parent` id the next call followed: a walk up a chain, not pages)."""
    declared = frozenset(declared)
    was, is_ = without_metadata(before, declared), without_metadata(now, declared)
    sent = {v for v in sent if _a_token(v)}
    moved: set[str] = set()
    followed: set[str] = set()

    def walk(x: Any, y: Any, path: str) -> bool:
        if isinstance(x, dict) and isinstance(y, dict):
            return x.keys() == y.keys() and all(walk(x[k], y[k], f"{path}.{key_name(k)}" if path else key_name(k))
                                                for k in x)
        if isinstance(x, (dict, list)) or isinstance(y, (dict, list)):
            return type(x) is type(y)  # a list's rows are the answer: compared by the fingerprint, never learned
        if x == y:
            return True
        if _a_token(x) and _a_token(y):
            moved.add(path)
            followed.update({x} & sent)
            return True
        return False
    pages = holds_rows(was) and holds_rows(is_)  # a page lists rows: a chain of records followed id by id is no page
    return (frozenset(moved), followed) if pages and walk(was, is_, "") and followed else (frozenset(), set())


def holds_rows(value: Any) -> bool:
    """Does an answer hold a non-empty list of records or values anywhere?"""
    if isinstance(value, list):
        return bool(value)
    return isinstance(value, dict) and any(map(holds_rows, value.values()))


def _a_token(value: Any) -> bool:
    """A string of one word with letters and digits together (`req_8f3a`, `8c2f3a1b9d-SJC`), not a word."""
    return isinstance(value, str) and len(value.split()) == 1 and any(c.isalpha() for c in value) \
        and any(c.isdigit() for c in value)


def a_number(value: Any) -> bool:
    """A JSON number, not a flag."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
