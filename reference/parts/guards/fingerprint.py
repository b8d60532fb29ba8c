"""Lesson 3: fingerprints of actions and of results, normalised so that a repeat in disguise shows.

A model rarely repeats itself byte for byte. It reorders the keys, pads a code with spaces, writes
it in lower case, says "tomorrow" instead of the date, or switches from PEK to PKX. A fingerprint
that is the raw argument text (or `json.dumps` of it) sees a new call every time. This one is the
tool name plus the canonical arguments:

- keys sorted (JSON object order means nothing);
- strings Unicode-NFKC normalised (full-width "ＰＥＫ" is "PEK"), trimmed, inner whitespace collapsed;
- case folded only where the tool's schema says the value is case-insensitive (an order id or a
  search query may be case-sensitive: folding it would merge calls that are really different);
- numbers compared as numbers where the schema says integer or number ("2", 2 and 2.0 are one page);
- absent optional arguments filled in from the schema's `default`;
- relative dates (today, tomorrow, yesterday) resolved against the run's clock, on date properties;
- IATA codes mapped to their metropolitan area (PEK, PKX, BJS -> BJS), on airport properties.

The schema convention (plain JSON Schema, so every provider accepts the tool definition, and the
model reads the same words the guard does):

| the property says                                 | the guard                                        |
|---------------------------------------------------|--------------------------------------------------|
| `"format": "iata"`                                | airport code: trimmed, upper-cased, mapped to its metro area; checked against the request |
| description contains "case-insensitive"           | case-folds the value ("not case-insensitive" does not count) |
| `"format": "date"`, or description has YYYY-MM-DD | resolves today / tomorrow / yesterday to YYYY-MM-DD |
| `"type": "integer"` or `"number"`                 | compares numbers as numbers                      |
| `"default": ...`                                  | an absent argument counts as its default         |

`format` values other than the standard ones are ignored by JSON Schema validators (they are
annotations), and the kit sends tools with `strict: false`, so `iata` is safe to send.

Result fingerprints apply the same normalisation to what a tool returned, so "different arguments,
same result" shows too.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional

from ...core.toolresult import read_result
from . import airports

RELATIVE_DAYS = {"today": 0, "tomorrow": 1, "yesterday": -1}
_CASE_INSENSITIVE = re.compile(r"(?<!not )\bcase[- ]insensitive\b", re.IGNORECASE)


# ---------------------------------------------------------------- what the schema says

def types_of(schema: Any) -> set[str]:
    if not isinstance(schema, Mapping):  # `true` is a valid schema too: it says nothing
        return set()
    kind = schema.get("type")
    return set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()


def is_airport(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("format") == "iata"


def is_case_insensitive(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        is_airport(schema) or bool(_CASE_INSENSITIVE.search(str(schema.get("description", "")))))


def is_date(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("format") == "date" or "YYYY-MM-DD" in str(schema.get("description", "")))


# ---------------------------------------------------------------- canonical values

def clean_text(value: str) -> str:
    """NFKC, trimmed, every run of whitespace one space."""
    return " ".join(unicodedata.normalize("NFKC", value).split())


def _number(value: Any) -> Any:
    """2, 2.0 and "2" are one number; anything that is not a number is left as it is."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            value = float(clean_text(value))
        except ValueError:
            return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def canonical(value: Any, schema: Optional[Mapping[str, Any]] = None, today: Optional[dt.date] = None) -> Any:
    """The value as the tool will understand it, by its schema (an empty schema: generic rules only)."""
    schema = schema if isinstance(schema, Mapping) else {}  # `true` is a valid schema too: it says nothing
    if isinstance(value, dict):
        props = schema.get("properties", {})
        props = props if isinstance(props, Mapping) else {}
        out = {}
        for key, v in value.items():
            key = clean_text(key)  # " origin" is the origin
            out[key] = canonical(v, props.get(key), today)
        for key, sub in props.items():  # an absent argument is its default
            if key not in out and isinstance(sub, dict) and "default" in sub:
                out[key] = canonical(sub["default"], sub, today)
        return out
    if isinstance(value, list):
        return [canonical(v, schema.get("items"), today) for v in value]
    if types_of(schema) & {"integer", "number"} or isinstance(value, (int, float)):
        value = _number(value)
    if "string" in types_of(schema) and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # {"order_id": 1234} and {"order_id": "1234"} are one order
    if not isinstance(value, str):
        return value
    text = clean_text(value)
    if is_airport(schema):
        try:
            return airports.metro(text)
        except airports.AirportCodeError:
            return airports.clean(text)  # unknown: kept as written (upper-case); the guard reports it
    if is_date(schema) and today is not None and text.lower() in RELATIVE_DAYS:
        return (today + dt.timedelta(days=RELATIVE_DAYS[text.lower()])).isoformat()
    if is_case_insensitive(schema):
        return text.casefold()
    return text


def canonical_arguments(arguments: Mapping[str, Any], parameters: Optional[Mapping[str, Any]],
                        today: Optional[dt.date] = None) -> dict[str, Any]:
    return canonical(dict(arguments), parameters or {}, today)


def fingerprint(tool: str, arguments: Mapping[str, Any], parameters: Optional[Mapping[str, Any]] = None,
                today: Optional[dt.date] = None) -> str:
    """`tool` + canonical arguments, readable: 'search_flights {"date":"2026-12-01","destination":"SHA",...}'."""
    body = json.dumps(canonical_arguments(arguments, parameters, today), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return f"{tool} {body}"


def raw_fingerprint(tool: str, argument_text: str) -> str:
    """For arguments that are not a JSON object: the text, whitespace-normalised."""
    return f"{tool} {clean_text(argument_text)}"


def show(fp: str) -> str:
    """'search_flights {"date":"2026-12-01","origin":"BJS"}' -> 'search_flights(date=2026-12-01, origin=BJS)'."""
    tool, _, body = fp.partition(" ")
    try:
        args = json.loads(body)
    except (ValueError, RecursionError):
        return f"{tool}({body})"
    if not isinstance(args, dict):
        return f"{tool}({body})"
    return f"{tool}(" + ", ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                                  for k, v in args.items()) + ")"


# ---------------------------------------------------------------- airport arguments

@dataclass(frozen=True)
class ArgumentProblem:
    """An argument the guard will not let through, with a message the model can act on."""

    argument: str
    value: Any
    message: str
    suggestions: tuple[str, ...] = ()


def airport_problems(arguments: Mapping[str, Any], parameters: Optional[Mapping[str, Any]],
                     request: str = "") -> list[ArgumentProblem]:
    """Airport codes (top-level `format: iata` properties) that do not exist, or do not fit the request."""
    props = (parameters or {}).get("properties", {})
    fields = {k: v for k, v in arguments.items() if isinstance(v, str) and is_airport(props.get(k) or {})}
    problems = []
    for name, value in fields.items():
        others = [v for k, v in fields.items() if k != name]
        try:
            airports.metro(value)  # raises for a code that does not exist
            why = airports.request_problem(value, request, others) if request else None
        except airports.AirportCodeError as exc:
            problems.append(ArgumentProblem(name, value, exc.message, tuple(exc.suggestions)))
            continue
        if why:
            problems.append(ArgumentProblem(name, value, why[0], tuple(why[1])))
    return problems


# ---------------------------------------------------------------- results

def parse_result(content: str) -> tuple[bool, Any]:
    """(ok, payload) of a tool result, as `read_result` reads it; plain text comes back normalised."""
    ok, payload = read_result(content)
    return ok, clean_text(payload) if payload is content else payload  # `content` itself: it was not JSON


def result_fingerprint(content: str, is_error: bool = False) -> str:
    """A short hash of the normalised result: equal when two results say the same thing."""
    ok, payload = parse_result(content)
    body = json.dumps([ok and not is_error, canonical(payload)], sort_keys=True, ensure_ascii=False)
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
    return {json.dumps(canonical(payload), ensure_ascii=False)}


def is_empty(payload: Any) -> bool:
    """Nothing in it: None, "", [], {}, or containers of those ({"results": []})."""
    return not leaf_values(payload)


def news(content: str, is_error: bool, seen: Iterable[str]) -> set[str]:
    """The values this result adds to what the run had already seen (errors add nothing)."""
    ok, payload = parse_result(content)
    if is_error or not ok:
        return set()
    return leaf_values(payload) - set(seen)
