"""Lesson 3: arguments the guard will not send, at any depth, each with a message the model can act on.

Two checks, wherever the value sits (`origin`, `legs[1].to`, `stay.check_in`):

- an airport (`"format": "iata"`) that does not exist, or is a real code for somewhere the user did not
  ask about (BJX is in Mexico, not Beijing): core/airports.py, which never guesses;
- a date (fingerprint.is_date) written so that it reads as two different days (01/02/2026): the guard
  will not pick one (core/dates.py).

Each problem names the path, the rule, what was written, the property's description and an example:

    stay.check_in: expected a date as YYYY-MM-DD, got '01/02/2026', which reads as 2026-02-01 (day first)
    or 2026-01-02 (month first). Check-in day. Example: 2026-12-01.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from ...core import airports
from ...core.dates import read_date
from ...core.canonical import is_airport, is_date


@dataclass(frozen=True)
class ArgumentProblem:
    """An argument the guard will not let through, with a message the model can act on."""

    argument: str  # its path: "origin", "legs[1].to", "stay.check_in"
    value: Any
    message: str
    suggestions: tuple[str, ...] = ()
    kind: str = "airport"  # or "date"


def leaves(value: Any, schema: Any, path: str = "", name: str = "") -> Iterator[tuple[str, str, Any, Mapping, list]]:
    """(path, name, value, schema, sibling airport values) for every string leaf that has a schema."""
    schema = schema if isinstance(schema, Mapping) else {}
    if isinstance(value, dict):
        props = schema.get("properties", {})
        props = props if isinstance(props, Mapping) else {}
        codes = [v for k, v in value.items() if isinstance(v, str) and is_airport(props.get(k))]
        for key, v in value.items():
            sub = props.get(key)
            here = f"{path}.{key}" if path else str(key)
            if isinstance(v, str):
                yield here, str(key), v, sub if isinstance(sub, Mapping) else {}, [c for c in codes if c is not v]
            else:
                yield from leaves(v, sub, here, str(key))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            here = f"{path}[{i}]"
            if isinstance(v, str):
                yield here, name, v, schema.get("items") if isinstance(schema.get("items"), Mapping) else {}, []
            else:
                yield from leaves(v, schema.get("items"), here, name)


def argument_problems(arguments: Mapping[str, Any], parameters: Optional[Mapping[str, Any]], request: str = "",
                      today: Optional[dt.date] = None) -> list[ArgumentProblem]:
    """Airport codes that do not exist or do not fit the request, and ambiguous dates, at any depth."""
    problems = []
    for path, name, value, schema, others in leaves(dict(arguments), parameters or {}):
        nested = "." in path or "[" in path
        if is_airport(schema):
            try:
                airports.metro(value)  # raises for a code that does not exist
                why = airports.request_problem(value, request, others) if request else None
            except airports.AirportCodeError as exc:
                problems.append(ArgumentProblem(path, value, _where(path, nested) + exc.message, tuple(exc.suggestions)))
                continue
            if why:
                problems.append(ArgumentProblem(path, value, _where(path, nested) + why[0], tuple(why[1])))
        elif today is not None and is_date(schema, name):
            reading = read_date(value, today)
            if reading is not None and reading.ambiguous:
                day_first, month_first = reading.readings
                about = str(schema.get("description", "")).strip()
                problems.append(ArgumentProblem(path, value, (
                    f"{path}: expected a date as YYYY-MM-DD, got {value!r}, which reads as {day_first} (day first) "
                    f"or {month_first} (month first)." + (f" {about.rstrip('.')}." if about else "")
                    + f" Example: {today.isoformat()}."), (day_first, month_first), "date"))
    return problems


def has_checks(schema: Any, name: str = "") -> bool:
    """Has the schema an airport or date property anywhere (something for `argument_problems` to check)?"""
    if not isinstance(schema, Mapping):
        return False
    if is_airport(schema) or is_date(schema, name):
        return True
    props = schema.get("properties")
    if isinstance(props, Mapping) and any(has_checks(v, str(k)) for k, v in props.items()):
        return True
    return has_checks(schema.get("items"), name)


def _where(path: str, nested: bool) -> str:
    return f"{path}: " if nested else ""  # a top-level argument's message stays as it was


def airport_problems(arguments: Mapping[str, Any], parameters: Optional[Mapping[str, Any]],
                     request: str = "") -> list[ArgumentProblem]:
    """The airport problems alone (exercise 3 hands this one to the learner)."""
    return argument_problems(arguments, parameters, request)
