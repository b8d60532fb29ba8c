"""One canonical form: the kit's single answer to "is this the same call?".

The loop guard, the executor (the same rejected call again), the trace (each call's fingerprint) and trace
diagnosis all ask it here, so that a repeat the guard catches is the repeat a trace shows.

A model rarely repeats itself byte for byte. It reorders the keys, pads a code with spaces, writes
it in lower case, says "tomorrow" instead of the date, or switches from PEK to PKX. A fingerprint
that is the raw argument text (or `json.dumps` of it) sees a new call every time. This one is the
tool name plus the canonical arguments:

- keys sorted (JSON object order means nothing);
- strings Unicode-NFKC normalised (full-width "ＰＥＫ" is "PEK"), trimmed, inner whitespace collapsed; but a value
  that spans lines keeps its layout, for its line breaks and indentation are content (Python and YAML read
  indentation as structure, a Makefile's tab is syntax, an edit's text must match the file's): only its ends are
  trimmed, so an edit resent with a tab where it had four spaces is another edit, and "a  b" is still "a b";
- case folded only where the tool's schema says the value is case-insensitive (an order id or a
  search query may be case-sensitive: folding it would merge calls that are really different);
- numbers compared as numbers where the schema says integer or number ("2", 2 and 2.0 are one page);
- absent optional arguments filled in from the schema's `default`;
- an RFC 3339 date-time with an offset as the instant it names, in UTC ("2026-12-03T00:00:00-05:00" and
  "2026-12-03T05:00:00.000Z" are one moment; a local time without an offset is left as written) (dates.py);
- dates in any unambiguous spelling ("Dec 1, 2026", "tomorrow", "Tuesday") read on the run's clock as
  YYYY-MM-DD, on date properties (dates.py; an ambiguous 01/02/2026 keeps its spelling: never merged);
- IATA codes mapped to their metropolitan area (PEK, PKX, BJS -> BJS), on airport properties;
- file paths written out once, POSIX and Windows alike, a text being a path by its form alone (paths.py):
  "./docs//a/../b.md" is "docs/b.md", `C:\\W\\src\\A.ts`, `c:/w//src/a.ts` and (in a conversation that
  states the workspace `C:\\W`) `.\\src\\A.ts` are one file, while `/srv/A.txt` and `/srv/a.txt` are two;
- an http(s) URL in its one spelling (uris.py), on a `"format": "uri"` property or wherever the value is
  wholly one URL (a scheme and an authority), as RFC 3986 (6.2.2, 6.2.3) and RFC 9110 (4.2.3, 7.1) define
  it: scheme and host in lower case, percent-encoding in one case, no default port, no dot segments, an
  empty path "/", no fragment (a client never sends it); `localhost`, `127.0.0.1` and `[::1]` on one port
  are one host (RFC 6761 6.3), `127.0.0.2` another. The path's case, a trailing slash, the query and its
  order stay: the server may read them. A URL inside a longer text (a shell command) is left as written;
- a host on a `"format": "hostname"` (or `ipv4`, `ipv6`) property in lower case, loopback as one (uris.py).

The schema convention (plain JSON Schema, so every provider accepts the tool definition, and the
model reads the same words the guard does):

| the property says                                 | the guard                                        |
|---------------------------------------------------|--------------------------------------------------|
| `"format": "iata"`                                | airport code: trimmed, upper-cased, mapped to its metro area; checked against the request |
| description contains "case-insensitive"           | case-folds the value ("not case-insensitive" does not count) |
| `"format": "date"`, description has YYYY-MM-DD, or the name is `date` / ends in `_date` | reads any unambiguous date spelling as YYYY-MM-DD (dates.py) |
| `"format": "uri"`, or a value that is one URL     | an http(s) URL in its one spelling (RFC 3986, RFC 9110) |
| `"format": "hostname"`, `"ipv4"` or `"ipv6"`      | a host in one spelling, `localhost` / `127.0.0.1` / `::1` as one |
| `"type": "integer"` or `"number"`                 | compares numbers as numbers                      |
| `"default": ...`                                  | an absent argument counts as its default         |

`format` values other than the standard ones are ignored by JSON Schema validators (they are
annotations), and the kit sends tools with `strict: false`, so `iata` is safe to send.

All of it applies at any depth: `legs[].to` is an airport when the `items` schema of `legs` says so.
Result fingerprints (parts/guards/results.py) apply the same normalisation to what a tool returned, so "different
arguments, same result" shows too.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Mapping  # not typing.Mapping: its isinstance check is ten times slower
from typing import Any, Optional

from . import jsontext
from . import airports
from .paths import canonical_path
from .dates import RELATIVE_DAYS, canonical_date, canonical_moment
from .uris import HOST_FORMATS, canonical_host, canonical_url, looks_like_url

__all__ = ["RELATIVE_DAYS", "call_fingerprint", "canonical", "canonical_arguments", "clean_text", "fingerprint",
           "raw_fingerprint",
           "show", "is_airport", "is_case_insensitive", "is_date", "types_of"]
_DATE_NAME = re.compile(r"^(date|.+_date|date_.+)$")
_CASE_INSENSITIVE = re.compile(r"(?<!not )\bcase[- ]insensitive\b", re.IGNORECASE)
# json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":")) for canonical arguments, a tree just
# built by `canonical` (reference/core/jsontext.py): made once, safe to share between threads
_action_json = jsontext.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------- what the schema says

def types_of(schema: Any) -> set[str]:
    if type(schema) is not dict and not isinstance(schema, Mapping):  # `true` is a valid schema too: it says nothing
        return set()
    kind = schema.get("type")
    return set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()


def is_airport(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("format") == "iata"


def is_case_insensitive(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        is_airport(schema) or bool(_CASE_INSENSITIVE.search(str(schema.get("description", "")))))


def is_date(schema: Any, name: str = "") -> bool:
    """A date property: `format: date`, YYYY-MM-DD in its description, or (a plain string) named like a date."""
    if not isinstance(schema, Mapping):
        return bool(_DATE_NAME.match(name.lower()))
    if schema.get("format") == "date" or "YYYY-MM-DD" in str(schema.get("description", "")):
        return True
    return "format" not in schema and "enum" not in schema and bool(_DATE_NAME.match(name.lower()))


# ---------------------------------------------------------------- canonical values

def clean_text(value: str) -> str:
    """NFKC, trimmed, every run of whitespace one space."""
    if value.isascii():  # NFKC leaves ASCII as it is: skip the normalisation (the common case, and hot)
        return " ".join(value.split())
    return " ".join(unicodedata.normalize("NFKC", value).split())


def _spans_lines(value: str) -> bool:
    """Does the text, trimmed, hold a line break (Unicode's mandatory breaks: LF, CR, NEL, LS, PS...)?"""
    return len(value.strip().splitlines()) > 1


def _laid_out(value: str) -> str:
    """A text whose layout is content: NFKC and trimmed, its line breaks and indentation kept as written."""
    return (value if value.isascii() else unicodedata.normalize("NFKC", value)).strip()


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


def canonical(value: Any, schema: Optional[Mapping[str, Any]] = None, today: Optional[dt.date] = None,
              name: str = "", meaning: bool = True, base: Optional[str] = None) -> Any:
    """The value as the tool will understand it, by its schema (an empty schema: generic rules only), at any depth.

    `name` is the property's name (for a list, the list's): a date is sometimes only named so. Without
    `meaning`, only the spelling is made canonical: airport codes stay codes and dates stay as written (a
    trace tells a re-spelt question, PEK then PKX, from the same words again). `base` is the workspace the
    conversation states (paths.stated_directory): a relative path is resolved against it."""
    if type(schema) is not dict and not isinstance(schema, Mapping):  # (a dict, the common case, asked first)
        schema = {}  # `true` is a valid schema too: it says nothing
    if isinstance(value, dict):
        props = schema.get("properties", {})
        props = props if type(props) is dict or isinstance(props, Mapping) else {}
        out = {}
        for key, v in value.items():
            key = clean_text(key)  # " origin" is the origin
            out[key] = canonical(v, props.get(key), today, key, meaning, base)
        for key, sub in props.items():  # an absent argument is its default
            if key not in out and isinstance(sub, dict) and "default" in sub:
                out[key] = canonical(sub["default"], sub, today, key, meaning, base)
        return out
    if isinstance(value, list):
        return [canonical(v, schema.get("items"), today, name, meaning, base) for v in value]
    written_as_text = isinstance(value, str)  # 20261201 the number is not a date spelling: the tool refuses it
    kinds = types_of(schema)
    if "integer" in kinds or "number" in kinds or isinstance(value, (int, float)):
        value = _number(value)
    if "string" in kinds and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # {"order_id": 1234} and {"order_id": "1234"} are one order
    if not isinstance(value, str):
        return value
    text = _laid_out(value) if _spans_lines(value) else clean_text(value)
    if is_airport(schema) and not meaning:
        return airports.clean(text)
    if is_airport(schema):
        try:
            return airports.metro(text)
        except airports.AirportCodeError:
            return airports.clean(text)  # unknown: kept as written (upper-case); the guard reports it
    if written_as_text and meaning and is_date(schema, name):
        return canonical_date(text, today)
    if meaning and (moment := canonical_moment(text)):  # one instant in another offset is the same moment
        return moment
    if is_case_insensitive(schema):
        return text.casefold()
    if schema.get("format") == "uri" or looks_like_url(text):  # the schema or the value says it is a URL
        return canonical_url(text, loopback=meaning)
    if schema.get("format") in HOST_FORMATS:
        return canonical_host(text, loopback=meaning)
    return canonical_path(text, base)


def canonical_data(value: Any) -> Any:
    """`canonical(value)` with no schema (a tool's result has none), computed without asking a schema at
    every leaf: the guard reads every result, so this runs at every step."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            key = clean_text(key)
            out[key] = canonical_data(v)
        return out
    if isinstance(value, list):
        return [canonical_data(v) for v in value]
    if isinstance(value, (int, float)):
        return _number(value)
    if not isinstance(value, str):
        return value
    return clean_text(value)


def canonical_arguments(arguments: Mapping[str, Any], parameters: Optional[Mapping[str, Any]],
                        today: Optional[dt.date] = None, base: Optional[str] = None) -> dict[str, Any]:
    return canonical(dict(arguments), parameters or {}, today, base=base)


def fingerprint(tool: str, arguments: Mapping[str, Any], parameters: Optional[Mapping[str, Any]] = None,
                today: Optional[dt.date] = None) -> str:
    """`tool` + canonical arguments, readable: 'search_flights {"date":"2026-12-01","destination":"SHA",...}'."""
    return action_of(tool, canonical_arguments(arguments, parameters, today))


def action_of(tool: str, canonical_args: Any) -> str:
    """The fingerprint of arguments already made canonical (a tree `canonical` built: never circular)."""
    return f"{tool} {_action_json(canonical_args)}"


def call_fingerprint(tool: str, argument_text: str, parameters: Optional[Mapping[str, Any]] = None,
                     today: Optional[dt.date] = None, meaning: bool = True) -> str:
    """The fingerprint of a call as the model wrote it (argument text that may not even be JSON); without
    `meaning`, of its spelling only (see `canonical`)."""
    try:
        arguments = json.loads(argument_text)
    except (ValueError, RecursionError):
        return raw_fingerprint(tool, argument_text)
    if not isinstance(arguments, dict):
        return raw_fingerprint(tool, argument_text)
    return action_of(tool, canonical(arguments, parameters or {}, today, "", meaning))


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
