"""The airport canonicaliser: IATA codes to their metropolitan area (metro_codes.py), named from `airportsdata`.

PEK (Capital) and PKX (Daxing) are both in BJS, the IATA code for all Beijing airports; PVG (Pudong)
and SHA (Hongqiao) are both in SHA, which is also the Shanghai metropolitan code. A model that
searches PEK, then PKX, then BJS is asking the same question three times.

Two things a canonicaliser must never do: guess, and be silent. A code that is not in the data is
an error the model can act on; so is a real code for somewhere the user did not ask about. BJX, which
a widely shared write-up calls a Beijing airport, is Del Bajio (Silao, near Leon, Mexico):

    >>> request_problem("BJX", "From Beijing to Shanghai, please", other_codes=["SHA"])[0]
    'BJX is Del Bajio International Airport (Silao, Guanajuato, MX), not Beijing: did you mean BJS (PEK, PKX)?'

The data is loaded on first use (about 0.3 s), so importing this module costs nothing.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable, Optional

from . import metro_codes


class AirportCodeError(ValueError):
    """A value that is not an IATA airport or metropolitan-area code, with what to use instead."""

    def __init__(self, code: str, message: str, suggestions: Iterable[str] = ()):
        super().__init__(message)
        self.code = code
        self.message = message
        self.suggestions = list(suggestions)


@dataclass
class _Tables:
    airports: dict  # IATA airport code -> airportsdata record
    macs: dict  # IATA metropolitan-area code -> {name, country, airports: {code: record or None}}
    member_of: dict[str, str] = field(default_factory=dict)  # airport code -> metropolitan code
    places: dict[str, set[str]] = field(default_factory=dict)  # lower-case place name -> canonical codes


@functools.lru_cache(maxsize=1)
def tables() -> _Tables:
    import airportsdata  # imported here: the demo path must stay fast

    records = airportsdata.load("IATA")
    # Membership comes from metro_codes.py (IATA's list plus a sourced supplement: EWR is in NYC, BWI in WAS),
    # not from the installed airportsdata release; airportsdata only names the airports.
    macs = {mac: {"name": metro_codes.NAMES[mac], "country": metro_codes.COUNTRY[mac],
                  "airports": {code: records.get(code) for code in members}}
            for mac, members in metro_codes.METRO_AREAS.items()}
    t = _Tables(records, macs)
    for mac, info in t.macs.items():
        for code in info["airports"]:
            t.member_of[code] = mac
        t.places.setdefault(info["name"].lower(), set()).add(mac)
    for code, record in t.airports.items():
        t.places.setdefault(record["city"].lower(), set()).add(t.member_of.get(code, code))
    return t


def clean(value: str) -> str:
    """The code as the model meant it: NFKC (full-width letters), trimmed, upper-case."""
    return unicodedata.normalize("NFKC", value).strip().upper()


def metro(value: str) -> str:
    """The canonical code: the metropolitan area when the code belongs to one, else the airport itself.

    Raises AirportCodeError for anything that is not a code in the data (a city name gets a
    suggestion: "Beijing" -> BJS)."""
    t = tables()
    code = clean(value)
    if code in t.macs:  # SHA is both an airport and the metro code: the metro wins, and they agree
        return code
    if code in t.member_of:
        return t.member_of[code]
    if code in t.airports:
        return code
    named = t.places.get(" ".join(code.lower().split()), set())
    metros = sorted(c for c in named if c in t.macs)
    if metros:  # a city with a metropolitan code: that code covers all its airports
        raise AirportCodeError(value, f"{value!r} is a place name, not an IATA code: use "
                               + " or ".join(label(c) for c in metros) + ".", metros)
    if named:  # several towns of that name, or one airport: list them, never pick one
        options = sorted(named)
        raise AirportCodeError(value, f"{value!r} is a place name, not an IATA code, and it could be "
                               + " or ".join(f"{c} ({describe(c)})" for c in options)
                               + ("" if len(options) == 1 else ": ask the user which one they mean") + ".", options)
    raise AirportCodeError(value, f"{value!r} is not an IATA airport or metropolitan-area code. Use the three-letter "
                           "code of the airport or of its metropolitan area, or ask the user which airport they mean.")


def label(code: str) -> str:
    """BJS -> 'BJS (PEK, PKX)'; an airport outside any metropolitan area is just its code."""
    info = tables().macs.get(code)
    if info is None:
        return code
    return f"{code} ({', '.join(sorted(info['airports']))})"


def describe(code: str) -> str:
    """Where a code is: 'Del Bajio International Airport (Silao, Guanajuato, MX)', or for a metropolitan
    code (SHA is both) 'the Shanghai metropolitan area (CN: PVG, SHA)'."""
    t = tables()
    code = clean(code)
    if code in t.macs:
        info = t.macs[code]
        return f"the {info['name']} metropolitan area ({info['country']}: {', '.join(sorted(info['airports']))})"
    if code in t.airports:
        a = t.airports[code]
        where = ", ".join(dict.fromkeys(x for x in (a["city"], a["subd"], a["country"]) if x))
        return f"{a['name']} ({where})"
    return code


def airport_name(code: str) -> str:
    """The airport's own name, even for a code that is also a metropolitan code (SHA: Hongqiao)."""
    record = tables().airports.get(clean(code))
    return record["name"] if record else "(a metropolitan-area code)"


def places_of(code: str) -> set[str]:
    """The place names a canonical code answers to (lower case): its metro name and its airports' cities."""
    t = tables()
    names = set()
    if code in t.macs:
        names.add(t.macs[code]["name"].lower())
        names.update(a["city"].lower() for a in t.macs[code]["airports"].values() if a)
    if code in t.airports:
        names.add(t.airports[code]["city"].lower())
    return names


_CAPITALISED = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}")


def places_in(text: str) -> dict[str, set[str]]:
    """Place names the user wrote, with the canonical codes each stands for.

    Only capitalised words are looked at ("Beijing", "Hong Kong"), so common words that happen to
    be town names somewhere do not count."""
    t = tables()
    found: dict[str, set[str]] = {}
    for match in _CAPITALISED.finditer(unicodedata.normalize("NFKC", text)):
        words = match.group().split()
        for size in range(len(words), 0, -1):  # longest names first: "Hong Kong" before "Hong"
            for start in range(len(words) - size + 1):
                name = " ".join(words[start:start + size])
                if name.lower() in t.places and not any(name in f for f in found):
                    found[name] = set(t.places[name.lower()])
    return found


def request_problem(value: str, request: str, other_codes: Iterable[str] = ()) -> Optional[tuple[str, list[str]]]:
    """(why this code does not fit the user's request, the codes meant), or None when it fits or we cannot tell.

    `other_codes` are the other airport arguments of the same call (the destination when checking
    the origin): a place they already cover is not what this code was meant to be."""
    code = metro(value)  # raises for codes that do not exist at all
    tokens = set(re.findall(r"\b[A-Z]{3}\b", request.upper()))
    if clean(value) in tokens or code in tokens:
        return None  # the user wrote the code themselves
    mentioned = places_in(request)
    if not mentioned:
        return None  # the request names no place we know: nothing to compare with
    if places_of(code) & {name.lower() for name in mentioned} or any(code in c for c in mentioned.values()):
        return None
    covered = set()
    for other in other_codes:
        try:
            covered.add(metro(other))
        except AirportCodeError:
            pass
    meant = {name: codes for name, codes in mentioned.items() if not codes & covered} or mentioned
    options = sorted({c for codes in meant.values() for c in codes if c in tables().macs}
                     or {c for codes in meant.values() for c in codes})
    return (f"{clean(value)} is {describe(clean(value))}, not {' or '.join(meant)}: did you mean "
            + " or ".join(label(c) for c in options) + "?", options)
