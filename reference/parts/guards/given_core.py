"""Exercise 3's core, handed to its stretch exercise so the stretch does not depend on yours being finished.

These are the core's answers (solutions/ex03_fingerprint_guard.py): do the core first, without reading
this file. The stretch (exercises/ex03b_guard_stretch.py) imports them.
"""
from __future__ import annotations

import datetime as dt
import json
import unicodedata
from typing import Any, Optional, Sequence

from ...core.airports import AirportCodeError, metro
from ...core.dates import canonical_date

__all__ = ["alternation", "canonical", "fingerprint", "repeated"]


def canonical(value: Any, schema: Optional[dict], today: Optional[dt.date]) -> Any:
    """The value as the tool understands it, by its JSON schema (None: generic rules only)."""
    schema = schema or {}
    if isinstance(value, dict):
        props = schema.get("properties", {})
        out = {key: canonical(v, props.get(key), today) for key, v in value.items()}
        for key, sub in props.items():  # an absent argument is its default
            if key not in out and isinstance(sub, dict) and "default" in sub:
                out[key] = canonical(sub["default"], sub, today)
        return out
    if isinstance(value, list):
        return [canonical(v, schema.get("items"), today) for v in value]
    written_as_text = isinstance(value, str)  # the number 20261201 is not a date spelling
    numeric = schema.get("type") in ("integer", "number")
    if isinstance(value, str) and numeric:
        try:
            value = float(value.strip())
        except ValueError:
            return value
    if isinstance(value, float) and value.is_integer():
        return int(value)  # 2, 2.0 and "2" are one page
    if not isinstance(value, str):
        return value
    text = " ".join(unicodedata.normalize("NFKC", value).split())
    description = str(schema.get("description", "")).lower()
    if schema.get("format") == "iata":
        try:
            return metro(text)  # PEK, PKX, BJS -> BJS
        except AirportCodeError:
            return text.upper()  # never a guess: the airport check reports it
    if (schema.get("format") == "date" or "yyyy-mm-dd" in description) and written_as_text:
        return canonical_date(text, today)  # "Dec 1, 2026", "tomorrow", "Tuesday"; 01/02/2026 keeps its spelling
    if "case-insensitive" in description and "not case-insensitive" not in description:
        return text.casefold()
    return text


def fingerprint(tool: str, arguments: dict, schema: Optional[dict], today: Optional[dt.date]) -> str:
    """'search_flights {"date":"2026-12-01","destination":"SHA","origin":"BJS"}' for PEK/SHA/tomorrow."""
    body = json.dumps(canonical(arguments, schema, today), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{tool} {body}"


def repeated(history: Sequence[str], action: str, allowed_runs: int = 1) -> Optional[int]:
    """How often `action` was already attempted anywhere in the run, when that reaches `allowed_runs`."""
    earlier = sum(1 for past in history if past == action)
    return earlier if earlier >= allowed_runs else None


def alternation(history: Sequence[str], action: str) -> Optional[tuple[str, str]]:
    """(A, B) when the last four actions, this one included, go A-B-A-B."""
    window = [*history[-3:], action]
    if len(window) == 4 and window[0] != window[1] and window == [window[0], window[1]] * 2:
        return window[0], window[1]
    return None
