"""pydantic's validation errors, turned into one clear line per field for a scenario author.

    scenarios/x.yaml: model.script[1].anwser: unknown field; did you mean 'answer'? allowed here: ...
"""
from __future__ import annotations

import difflib
import re
from typing import Any, Callable, Optional

from pydantic import BaseModel, ValidationError

from .schema import Scenario


# pydantic's names for the branches of a union or a validator, which mean nothing to a scenario author
_NOISE = ("function-", "union[", "list[", "dict[", "literal[", "tagged-union[", "nullable[")
_TYPE_NAMES = ("str", "int", "float", "bool", "none")


def _noise(part: Any) -> bool:
    return str(part) in _TYPE_NAMES or str(part).startswith(_NOISE)


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part) in _TYPE_NAMES or str(part).startswith(_NOISE):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _model_at(loc: tuple[Any, ...]) -> Optional[type[BaseModel]]:
    """The scenario class that owns the field at `loc` (to list the fields allowed there)."""
    model: type[BaseModel] = Scenario
    for part in loc:
        if isinstance(part, int) or str(part) in _TYPE_NAMES or str(part).startswith(_NOISE):
            continue
        field = model.model_fields.get(str(part))
        inner = _inner_model(field.annotation) if field is not None else None
        if inner is None:
            return None
        model = inner
    return model


def _inner_model(annotation: Any) -> Optional[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _unknown_field(loc: tuple[Any, ...]) -> str:
    model = _model_at(loc[:-1])
    if model is None:
        return "unknown field (check the spelling against docs/scenarios.md)"
    allowed = [name for name, f in model.model_fields.items() if not f.exclude]
    guess = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
    hint = f"did you mean '{guess[0]}'? " if guess else ""
    return f"unknown field; {hint}allowed here: {', '.join(allowed)}"


def _message(err: Any) -> str:
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "missing":
        return "this field is required"
    if err["type"] == "extra_forbidden":
        return _unknown_field(err["loc"])
    msg = re.sub(r"a valid dictionary( or instance of \w+)?", "a mapping (key: value pairs)", msg)
    if "input" in err and err["type"] != "value_error" and not isinstance(err["input"], dict):
        msg += f" (got {err['input']!r})"
    return msg


MAX_LINES = 10  # a file with 20,000 mistakes gets a report a person reads, not 20,000 lines


def problem_lines(exc: ValidationError, source: str,
                  line_of: Optional[Callable[[tuple[Any, ...]], Optional[int]]] = None) -> list[str]:
    """One line per field, each naming the file: `source: field.path: what was expected (line N)`."""
    problems: dict[str, list[str]] = {}  # one line per field: a union's branches become "X or Y"
    lines: dict[str, int] = {}
    for err in exc.errors():
        where, msg = _where(err["loc"]), _message(err)
        if where == "(top level)" and re.match(r"^[\w.\[\]]+: ", msg):
            where, msg = msg.split(": ", 1)  # a cross-field check names its own field
        elif line_of is not None and where not in lines:
            line = line_of(tuple(p for p in err["loc"] if isinstance(p, int) or not _noise(p)))
            if line is not None:
                lines[where] = line
        problems.setdefault(where, []).append(msg)
    out: list[str] = []
    for where, msgs in problems.items():
        alternatives = [m.removeprefix("Input should be ") for m in msgs if m.startswith("Input should be ")]
        if len(alternatives) == len(msgs) > 1:
            got = {m.rpartition(" (got ")[2] for m in alternatives}
            if len(got) == 1 and all(" (got " in m for m in alternatives):
                alternatives = [m.rpartition(" (got ")[0] for m in alternatives]
                msgs = ["Input should be " + " or ".join(alternatives) + " (got " + got.pop()]
            else:
                msgs = ["Input should be " + " or ".join(alternatives)]
        at = f" (line {lines[where]})" if where in lines else ""
        out += [f"{source}: {where}: {m}{at}" for m in msgs]
    if len(out) > MAX_LINES:
        out = out[:MAX_LINES - 1] + [f"{source}: and {len(out) - MAX_LINES + 1:,} more problems"]
    return out
