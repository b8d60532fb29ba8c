"""The days a user writes and the day a call's argument names, as the kit's one date reader (core/dates.py) reads
them, for the window of days a user bounded (asking.py).

A user writes a day in digits, in either order (5/20, 20/05, 20.05.2026, 2026-05-20: both readings count when day
and month could swap), or beside a month name that dateutil knows (May 20, 20th of May: dateutil's own English
names, the documented fallback of core/dates; the guard keeps no month names of its own, so "20 de mayo" names no
day it reads). A call's argument names a day when it is an RFC 3339 date or date-time, the form the kit's one
canonical form gives a date that a schema's `format: date` reads.
"""
from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any, Optional

from dateutil.parser import parserinfo

from ...core.dates import readings

# RFC 3339's full-date, alone or opening a date-time
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$")
# a day written in digits: 5/20, 20.05, 20/05/2026, 2026-05-20 (one separator throughout, a year of 2 or 4 digits)
_NUMERIC_DAY = re.compile(r"^(?:\d{1,2}([/.-])\d{1,2}(?:\1(?:\d{2}|\d{4}))?|\d{4}([/.-])\d{1,2}\2\d{1,2})$")
_ANY_YEAR = dt.date(2000, 1, 1)  # a leap year: the user rarely writes the year, and 29 February is a day
_MONTH_NAMES = parserinfo()  # dateutil's own month names (English), the documented fallback of core/dates


@lru_cache(maxsize=64)
def days_written(text: str) -> tuple[tuple[int, int], ...]:
    """The days (month, day) a case-folded text names, its year aside (a user rarely writes it), as core/dates reads
    them: a numeric form in both orders (05/06 is 5 June and 6 May), or a number beside a month name dateutil knows
    ("may 20", "20th of may")."""
    words = [w.strip(",;:!?()[]") for w in text.split()]
    found: set[str] = set()
    for i, word in enumerate(words):
        if _NUMERIC_DAY.match(word):
            found |= {r for r in readings(word, _ANY_YEAR) if _spells(r, word)}
        elif word[:1].isdigit():
            for span in (words[i - 1:i + 1] if i else [], words[i:i + 2], words[i:i + 3]):
                if any(_MONTH_NAMES.month(w.rstrip(".")) for w in span[:1] + span[-1:]):
                    found |= set(readings(" ".join(span), _ANY_YEAR)[:1])
    return tuple(sorted({(int(r[5:7]), int(r[8:10])) for r in found}))


def _spells(reading: str, word: str) -> bool:
    """Does the numeric form write the reading's day and month, in one order or the other (not 3.14 read as
    3 January, a number dateutil took for a decimal)?"""
    written = re.split(r"[/.-]", word)
    parts = [int(p) for p in written]
    pair = parts[1:3] if len(written[0]) == 4 else parts[:2]  # a year first: month and day after it
    return sorted(pair) == sorted((int(reading[5:7]), int(reading[8:10])))


def in_the_window(value: Any, days: tuple[tuple[int, int], ...]) -> bool:
    """Is `value` a date (RFC 3339: YYYY-MM-DD, or a date-time on it) that lies between the first and last of `days`?"""
    day = day_of(value)
    return day is not None and bool(days) and min(days) <= (day.month, day.day) <= max(days)


def day_of(value: Any) -> Optional[dt.date]:
    """The day an RFC 3339 date or date-time names; None for any other value."""
    if not isinstance(value, str) or not _ISO_DAY.match(value):
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None
