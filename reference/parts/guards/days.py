"""The days a user writes and the day a call's argument names, for the window of days a user bounded (asking.py).

**A user writes a day in digits or as CLDR writes a day of a month in some locale**: 5/20, 20/05, 20.05.2026,
2026-05-20 (both readings count when day and month could swap, as core/dates reads them), or a day beside a month by
a locale's own day-of-month pattern and month names ("May 20", "el 20 de mayo", "am 20. Mai", "20 мая", "5月20日",
"5월 20일"). **A bare day number beside such a day, in the same clause and on its side of the calendar, is the
range's other end**, as CLDR's interval formats write a range within one month ("May 20 – 26", "20–26 de mayo",
"20.–26. Mai", "5月20日～26日"): "may 20 to 26", "del 20 al 26 de mayo". It must not fire on a number that names no
day ("python 3.14, 20 seats"), nor read a later bare number as an earlier day ("May 20 for 3 nights").
A call's argument names a day when it is an RFC 3339 date or date-time, the form the kit's one canonical form gives
a date that a schema's `format: date` reads.

The month names and patterns are CLDR's, as Babel gives them, kept in cldr_days.json beside this file (its
`source` says which CLDR): read once a process, when a call sends a date and the user's text holds a number of one
or two digits.
"""
from __future__ import annotations

import calendar
import datetime as dt
import json
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from ...core.dates import readings

# RFC 3339's full-date, alone or opening a date-time
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$")
# a day written in digits: 5/20, 20.05, 20/05/2026, 2026-05-20 (one separator throughout, a year of 2 or 4 digits)
_NUMERIC_DAY = re.compile(r"^(?:\d{1,2}([/.-])\d{1,2}(?:\1(?:\d{2}|\d{4}))?|\d{4}([/.-])\d{1,2}\2\d{1,2})$")
_ANY_YEAR = dt.date(2000, 1, 1)  # a leap year: the user rarely writes the year, and 29 February is a day
_SKELETONS = ("MMMd", "MMMMd")  # CLDR's skeletons of a day of a month named (the numeric "Md" is _NUMERIC_DAY)
_BETWEEN = 2  # words between a range's two ends: CLDR writes one separator ("–", "～"); a user "to", "through the"
# a bare day number: one or two digits that are no part of a longer number, a decimal, a time or a numeric date
_BARE = re.compile(r"(?<!\d[/:.,-])(?<!\d)\d{1,2}(?!\d|[/:.,-]\d)")
_DAYS_DASHED = re.compile(r"^\d{1,2}-\d{1,2}$")  # two numbers joined by a hyphen
_DAY_DIGITS = re.compile(r"(?<!\d)\d{1,2}(?!\d)")
CLDR_DAYS = Path(__file__).with_name("cldr_days.json")
_CLAUSE_END = re.compile(r"[;!?\n\u3002\uff01\uff1f]")  # what ends a clause between two ends of a range


@lru_cache(maxsize=64)
def days_written(text: str) -> tuple[tuple[int, int], ...]:
    """The days (month, day) a case-folded text names, its year aside (a user rarely writes it): a numeric form in
    both orders (05/06 is 5 June and 6 May), a day by a CLDR day-of-month pattern, and a bare day number that closes
    or opens a range with one of those."""
    if not _DAY_DIGITS.search(text):
        return ()  # every form of a day writes it in one or two digits: CLDR's data is read only for such a text
    found: set[tuple[int, int]] = set()
    for word in (w.strip(",;:!?()[]") for w in text.split()):
        if _NUMERIC_DAY.match(word):
            read = {(int(r[5:7]), int(r[8:10])) for r in readings(word, _ANY_YEAR) if _spells(r, word)}
            found |= read
            if not read and _DAYS_DASHED.match(word):  # "20-26": no day, so two ends of a range ("20–26 de mayo")
                text = text.replace(word, word.replace("-", " "), 1)
    patterns, names = _patterns()
    matches = [m for pattern in patterns for m in pattern.finditer(text) if _days(m, names)]
    # of readings that overlap, the one that reads more of the text ("20 de mayo", not "20 de")
    named = [(m.span(), day) for m in matches for day in _days(m, names)
             if not any(o.start() < m.end() and m.start() < o.end() and len(o.group()) > len(m.group())
                        for o in matches)]
    found |= {day for _, day in named}
    for (start, end), (month, day) in named:
        found |= _other_end(text, start, end, month, day)
    return tuple(sorted(found))


def _days(match: re.Match, names: dict[str, frozenset[int]]) -> set[tuple[int, int]]:
    """The days a pattern's match names: its day of the month (or months, where locales name two alike)."""
    day, groups = int(match.group("day")), match.groupdict()
    months = names.get(groups["name"], frozenset()) if groups.get("name") else {int(groups["month"])}
    return {(month, day) for month in months if 1 <= month <= 12 and 1 <= day <= _length(month)}


def _other_end(text: str, start: int, end: int, month: int, day: int) -> set[tuple[int, int]]:
    """The bare day number that closes a range after the day (a later one) or opens it before (an earlier one),
    the nearest number on that side, no more than _BETWEEN words away in the same clause."""
    after = next(_BARE.finditer(text, end), None)
    before = [m for m in _BARE.finditer(text) if m.end() <= start][-1:]
    found = set()
    for bare, gap, later in ((after, text[end:after.start()] if after else "", True),
                             (before[0] if before else None, text[before[0].end():start] if before else "", False)):
        if bare is None or any(c.isdigit() for c in gap) or _CLAUSE_END.search(gap):
            continue
        words = gap.split()
        if words and not gap[:1].isspace():
            words = words[1:]  # a mark written on the number ("20th", "20.", "20日"), not a word between
        n = int(bare.group())
        if len([w for w in words if any(c.isalpha() for c in w)]) <= _BETWEEN and (n > day if later else n < day) \
                and n <= _length(month):
            found.add((month, n))
    return found


def _length(month: int) -> int:
    return calendar.monthrange(_ANY_YEAR.year, month)[1]


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[re.Pattern, ...], dict[str, frozenset[int]]]:
    """Each CLDR day-of-month pattern of any language as a regular expression, and every language's month names
    (format and stand-alone, wide and abbreviated, case-folded, without an abbreviation's dot) -> the month most
    languages give the name ("may" is May, though one language's "may" is another month). Read from CLDR_DAYS,
    which `cldr_table()` wrote from Babel's CLDR data (reading every language there costs about 0.8 s a process)."""
    table = json.loads(CLDR_DAYS.read_text(encoding="utf-8"))
    names = {name: frozenset(months) for name, months in table["months"].items()}
    return tuple(r for r in map(_regex, table["patterns"]) if r is not None), names


def cldr_table() -> dict[str, Any]:
    """CLDR_DAYS's contents, read from Babel's CLDR data: every base language's day-of-month patterns and month
    names, each name -> the months most languages give it (`write_cldr_table` writes it)."""
    import babel
    from babel.localedata import load, locale_identifiers
    patterns: set[str] = set()
    votes: dict[str, Counter] = {}
    for identifier in (i for i in locale_identifiers() if "_" not in i):  # a region rarely renames a month
        data = load(identifier)
        skeletons = data.get("datetime_skeletons", {})
        patterns |= {str(getattr(skeletons[s], "pattern", skeletons[s])) for s in _SKELETONS if s in skeletons}
        for name, months in _month_names(data.get("months", {})).items():
            votes.setdefault(name, Counter()).update(months)
    names = {name: sorted(m for m, n in count.items() if n == max(count.values()))
             for name, count in sorted(votes.items())}
    return {"source": f"CLDR {babel.core.get_cldr_version()} through Babel {babel.__version__}",
            "patterns": sorted(patterns), "months": names}


def write_cldr_table() -> None:
    """Write CLDR_DAYS from the installed Babel, an entry a line:
    python -c "from reference.parts.guards.days import write_cldr_table; write_cldr_table()"."""
    table, dump = cldr_table(), (lambda value: json.dumps(value, ensure_ascii=False))
    lines = [f'"source": {dump(table["source"])}',
             '"patterns": [\n' + ",\n".join(map(dump, table["patterns"])) + "\n]",
             '"months": {\n' + ",\n".join(f"{dump(k)}: {dump(v)}" for k, v in table["months"].items()) + "\n}"]
    CLDR_DAYS.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


def _month_names(months: Any) -> dict[str, set[int]]:
    """A language's month names, case-folded and without the dot of an abbreviation: the name -> its months. An
    entry CLDR writes as an alias of another (stand-alone as format) is read where that one is written."""
    names: dict[str, set[int]] = {}
    for context in ("format", "stand-alone"):
        for width in ("wide", "abbreviated"):
            for month, name in _entries(_entries(_entries(months).get(context)).get(width)).items():
                if isinstance(name, str):
                    names.setdefault(name.casefold().rstrip("."), set()).add(month)
    return names


def _entries(value: Any) -> dict:
    """The entries Babel's raw CLDR data writes at a place: a dict, or the dict beside an alias (`(Alias, {...})`)."""
    if isinstance(value, tuple):
        value = next((v for v in value if isinstance(v, dict)), {})
    return value if isinstance(value, dict) else {}


def _regex(pattern: str) -> Optional[re.Pattern]:
    """A CLDR date pattern as a regular expression over case-folded text: its day (d, dd), its month by number
    (M, MM) or by a name (MMM, MMMM, LLL, LLLL: a run of letters, looked up after), its quoted and plain literals,
    white space of any kind and width. None for a pattern with any other field."""
    number = r"(?<!\d[/:.,-])(?<!\d)(?P<{}>\d{{1,2}})(?!\d|[/:.,-]\d)"  # no part of a decimal, a time, a date
    fields = {"d": number.format("day"), "M": number.format("month"),
              "MMM": r"(?<!\w)(?P<name>[^\s.,;:!?()]+?)\.?(?![^\W\d_])"}
    fields.update(dd=fields["d"], MM=fields["M"], MMMM=fields["MMM"], LLL=fields["MMM"], LLLL=fields["MMM"])
    parts = []
    for match in re.finditer(r"(([a-zA-Z])\2*)|'((?:[^']|'')*)'|(\s+)|(.)", pattern):
        field, quoted, space, plain = match.group(1), match.group(3), match.group(4), match.group(5)
        if field and field not in fields:
            return None
        parts.append(fields[field] if field else r"\s*" if space else
                     re.escape((plain if quoted is None else quoted.replace("''", "'") or "'").casefold()))
    regex = "".join(parts)
    return re.compile(regex) if "(?P<day>" in regex and ("(?P<month>" in regex or "(?P<name>" in regex) else None


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

