"""Dates as a model writes them, read on the run's simulated clock: one spelling, one date.

"2026-12-01", "Dec 1, 2026", "1 December 2026", "12/1/2026" read as "tomorrow" on 30 November 2026,
and all become "2026-12-01", so a search repeated in another spelling is still a repeat:

    >>> read_date("Dec 1, 2026", dt.date(2026, 11, 30)).iso
    '2026-12-01'
    >>> read_date("tuesday", dt.date(2026, 11, 30)).iso   # a Monday: the next Tuesday is the 1st
    '2026-12-01'

- today / tomorrow / yesterday: the clock's today, plus or minus a day;
- a weekday name ("Tuesday", "next Tuesday", "on tue"): the next such day AFTER today (a week ahead
  when today is that day), which is what a user booking "Tuesday" means;
- a spelling with a month name or a four-digit year first is unambiguous;
- a numeric form that reads differently day-first and month-first (01/02/2026) is read both ways; when
  the two differ the value is AMBIGUOUS: it keeps its own spelling (never merged with either date) and
  the guard says so, with both readings (checks.py). 13/01/2026 has one reading, so it is not ambiguous.

The parser is python-dateutil, not dateparser: it is small and pure Python (pandas depends on it, so it is
usually installed already), deterministic (no locale data, no wall clock: missing parts come from the
`default` we pass, the simulated today), and strict (it refuses text that is not a date, so a free-text
argument is never read as one). dateparser reads more languages and phrases, but it is heavier, and it
reads relative phrases against the machine's clock unless told otherwise; the few relative words a
booking needs are handled here.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Optional

from dateutil import parser as _dateutil

RELATIVE_DAYS = {"today": 0, "tomorrow": 1, "yesterday": -1}
WEEKDAYS = {name: i for i, names in enumerate((("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"),
                                               ("thursday", "thu", "thur", "thurs"), ("friday", "fri"),
                                               ("saturday", "sat"), ("sunday", "sun"))) for name in names}
_WEEKDAY = re.compile(r"^(?:(?:next|this|on|coming)\s+)?([a-z]+)\.?$")
_NUMERIC = re.compile(r"^\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}$")  # 01/02/2026: day and month could swap
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SHORT_NUMERIC = re.compile(r"^\d{1,2}[/.\-]\d{1,2}$")  # 01/02 without its year: day and month could swap too


@dataclass(frozen=True)
class DateReading:
    text: str  # as written (cleaned)
    iso: Optional[str] = None  # YYYY-MM-DD when there is exactly one reading
    readings: tuple[str, ...] = ()  # both readings, when the spelling is ambiguous

    @property
    def ambiguous(self) -> bool:
        return len(self.readings) > 1


def read_date(text: str, today: dt.date) -> Optional[DateReading]:
    """The date `text` means on `today`'s clock; None when it is not a date at all (leave it as it is)."""
    said = " ".join(text.split())
    low = said.lower().rstrip(".")
    if low in RELATIVE_DAYS:
        return DateReading(said, (today + dt.timedelta(days=RELATIVE_DAYS[low])).isoformat())
    weekday = _WEEKDAY.match(low)
    if weekday and weekday.group(1) in WEEKDAYS:
        ahead = (WEEKDAYS[weekday.group(1)] - today.weekday() - 1) % 7 + 1  # 1..7: strictly after today
        return DateReading(said, (today + dt.timedelta(days=ahead)).isoformat())
    if _ISO.match(said):
        try:
            return DateReading(said, dt.date.fromisoformat(said).isoformat())
        except ValueError:
            return None
    if not any(ch.isdigit() for ch in said):  # "soon", "next week": not a date this parser should guess at
        return None
    default = dt.datetime(today.year, today.month, today.day)
    readings = [r for r in (_parse(said, default, dayfirst=True), _parse(said, default, dayfirst=False)) if r]
    if not readings:
        return None
    if _NUMERIC.match(said) and len(set(readings)) > 1:
        return DateReading(said, None, tuple(readings))
    return DateReading(said, readings[-1])  # month-first only matters for numeric forms, handled above


def readings(text: str, today: dt.date) -> tuple[str, ...]:
    """Every date `text` can mean on `today`'s clock: its one reading, or both readings of a numeric form whose day
    and month could swap, with its year written or not (05/06 is 5 June or 6 May; 5/20 only 20 May)."""
    found = read_date(text, today)
    if found is None:
        return ()
    if found.iso is None:
        return tuple(sorted(found.readings))
    said = " ".join(text.split())
    if not _SHORT_NUMERIC.match(said):
        return (found.iso,)
    default = dt.datetime(today.year, today.month, today.day)
    both = (_parse(said, default, dayfirst=True), _parse(said, default, dayfirst=False))
    return tuple(sorted({r for r in both if r}))


def _parse(text: str, default: dt.datetime, dayfirst: bool) -> Optional[str]:
    try:
        return _dateutil.parse(text, default=default, dayfirst=dayfirst).date().isoformat()
    except (ValueError, OverflowError):  # dateutil's ParserError is a ValueError
        return None


def canonical_date(text: str, today: Optional[dt.date]) -> str:
    """YYYY-MM-DD for one reading; an ambiguous or unreadable value keeps its own spelling."""
    if today is None:
        return text
    reading = read_date(text, today)
    return reading.iso if reading and reading.iso else text


# RFC 3339's date-time with its offset (section 5.6): one instant, however the offset spells it
_MOMENT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$")


def canonical_moment(text: str) -> Optional[str]:
    """An RFC 3339 date-time with an offset, as the one instant it names, in UTC: "2026-12-03T00:00:00-05:00",
    "2026-12-02T21:00:00-08:00" and "2026-12-03T05:00:00.000Z" are all "2026-12-03T05:00:00Z". A moment without
    an offset (local time, read in a zone another argument may name) is not one instant: None, as for any other
    text."""
    found = _MOMENT.match(text)
    if not found:
        return None
    *parts, fraction, offset = found.groups()
    try:
        zone = dt.timezone.utc if offset in "Zz" else dt.timezone(
            (-1 if offset[0] == "-" else 1) * dt.timedelta(hours=int(offset[1:3]), minutes=int(offset[4:6])))
        moment = dt.datetime(*map(int, parts), tzinfo=zone).astimezone(dt.timezone.utc)
    except (ValueError, OverflowError):  # 2026-02-30, or an offset of a day or more
        return None
    digits = (fraction or "").rstrip("0")  # .000 and no fraction are one instant; finer digits are kept as written
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{digits}" if digits else "") + "Z"
