"""A failed call, as a tool result the model can act on: what happened, which argument, what was
expected with an example, which other tool to use, what to do next. Never an exception's text."""
from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any, Optional

from ...core.messages import ToolCall, ToolMessage
from ...core.toolresult import error_body, to_json
from .redaction import safe_code, safe_text
from .taxonomy import KINDS, WITHOUT_IT, Failure


def explained(error_type: str, message: str, **fields: Any) -> dict[str, Any]:
    """The error body the model reads: `ok`, `error_type`, `retryable` and `message` first (the shape of
    a tool's own error, and of the loop guard's interventions), the fields that say something, and what
    to do next."""
    fields = {k: v for k, v in fields.items() if v not in (None, [], "")}
    fields.setdefault("instruction", KINDS[error_type].instruction if error_type in KINDS else WITHOUT_IT)
    # the label survives translation: the model (and the guard, which never counts a retry after a
    # retryable error as a loop) read the error's class here
    return error_body(error_type, message, retryable=error_type in KINDS and KINDS[error_type].retryable, **fields)


def error_message(call: ToolCall, error_type: str, message: str, **fields: Any) -> ToolMessage:
    """`explained` as the tool result that answers `call`."""
    return ToolMessage(call.id, to_json(explained(error_type, message, **fields)), is_error=True)


def translate(call: ToolCall, failure: Failure, *, schema: Optional[dict[str, Any]] = None,
              attempts: int = 1, alternatives: Optional[list[str]] = None, gave_up: Optional[str] = None,
              clock_today: Optional[dt.date] = None) -> ToolMessage:
    """A failed call, as a result the model can act on (`failure_body` answering `call`)."""
    body = failure_body(call, failure, schema=schema, attempts=attempts, alternatives=alternatives,
                        gave_up=gave_up, clock_today=clock_today)
    return ToolMessage(call.id, to_json(body), is_error=True)


def failure_body(call: ToolCall, failure: Failure, *, schema: Optional[dict[str, Any]] = None,
                 attempts: int = 1, alternatives: Optional[list[str]] = None, gave_up: Optional[str] = None,
                 clock_today: Optional[dt.date] = None) -> dict[str, Any]:
    """What happened, which argument, what was expected with an example, which other tool to use,
    what to do next. Never an exception's text."""
    kind = failure.kind
    message = f"'{call.name}' {kind.summary}."
    detail = safe_text(failure.detail)
    if detail:
        message += f" It said: {detail}"
    fields: dict[str, Any] = {}
    if failure.error_type == "rejected":
        fields["error_code"] = safe_code(failure.error_code)
    if failure.retryable:  # the code already retried: tell the model it should not
        message += f" Tried {attempts}x" + (f"; {gave_up}" if gave_up and gave_up != "no attempts left" else "") + "."
        fields["attempts"] = attempts
        if failure.retry_after is not None:
            fields["retry_after"] = failure.retry_after
    if failure.error_type == "invalid_argument" and schema is not None:
        fields.update(argument_help(schema, mentioned_argument(schema, detail), clock_today))
    fields["alternatives"] = alternatives or None
    return explained(failure.error_type, message, **fields)


def mentioned_argument(schema: dict[str, Any], detail: Optional[str]) -> Optional[str]:
    """Which argument a tool's 400 is about: the one its message names, or the only one there is."""
    names = list((schema.get("properties") or {}).keys())
    if detail:
        named = [n for n in names if re.search(rf"\b{re.escape(n)}\b", detail)]
        if len(named) == 1:
            return named[0]
    return names[0] if len(names) == 1 else None


def argument_help(schema: dict[str, Any], argument: Optional[str], today: Optional[dt.date]) -> dict[str, Any]:
    """`argument`, `expected` and `example` for one argument of a tool's JSON Schema."""
    props = schema.get("properties") or {}
    if argument is None or argument not in props:
        return signature_help(schema, today) if props else {}
    prop = props[argument]
    return {"argument": argument, "expected": describe(prop), "example": example_value(prop, today)}


def describe(prop: dict[str, Any]) -> str:
    parts = [prop["description"]] if prop.get("description") else []
    if "enum" in prop:
        parts.append("one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"]))
    elif prop.get("type"):
        parts.append(f"a {prop['type']}" + (f" in format {prop['format']}" if prop.get("format") else "")
                     + (f" matching {prop['pattern']}" if prop.get("pattern") else ""))
    return "; ".join(parts) or "see the tool's schema"


def example_value(prop: dict[str, Any], today: Optional[dt.date]) -> Any:
    """A valid value to show: the schema's own example if it has one, else one made from its shape."""
    if prop.get("examples"):
        return prop["examples"][0]
    if "enum" in prop:
        return prop["enum"][0]
    if "default" in prop:
        return prop["default"]
    pattern = str(prop.get("pattern", ""))
    looks_like_date = (prop.get("format") == "date" or "YYYY-MM-DD" in str(prop.get("description", ""))
                       or r"\d{4}-\d{2}-\d{2}" in pattern or "[0-9]{4}-" in pattern)
    if looks_like_date and today is not None:
        return today.isoformat()
    return {"integer": 1, "number": 1.5, "boolean": True, "array": [], "object": {}}.get(prop.get("type", ""))


def schema_problems(validation_errors: list[Any], schema: dict[str, Any],
                    today: Optional[dt.date]) -> tuple[str, dict[str, Any]]:
    """jsonschema ValidationErrors as (message, fields): every problem in words, and for the first
    argument at fault what was expected and an example. The offending values are the model's own,
    so echoing them leaks nothing."""
    problems: list[str] = []
    arguments: list[str] = []
    for error in validation_errors:
        text, named = _schema_problem(error, schema)
        if text not in problems:
            problems.append(text)
        arguments += [a for a in named if a not in arguments]
    if len(arguments) == 1:
        return "; ".join(problems[:5]), argument_help(schema, arguments[0], today)
    return "; ".join(problems[:5]), signature_help(schema, today)  # several at fault: the whole call


def signature_help(schema: dict[str, Any], today: Optional[dt.date]) -> dict[str, Any]:
    """`expected` for every argument, and a whole `example` call when every argument has one."""
    props = schema.get("properties") or {}
    example = {n: example_value(p, today) for n, p in props.items()}
    return {"expected": {n: describe(p) for n, p in props.items()},
            "example": example if example and all(v is not None for v in example.values()) else None}


def _schema_problem(error: Any, schema: dict[str, Any]) -> tuple[str, list[str]]:
    props = schema.get("properties") or {}
    path = [p for p in error.path if isinstance(p, str)]
    argument = path[0] if path else None
    validator, instance = error.validator, error.instance
    if validator == "required" and isinstance(instance, dict):
        missing = [n for n in error.validator_value if n not in instance]
        return (f"the required argument{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(m) for m in missing)} {'are' if len(missing) > 1 else 'is'} missing",
                missing)
    if validator == "additionalProperties" and isinstance(instance, dict):
        extra = sorted(k for k in instance if k not in props)
        return (f"unknown argument{'s' if len(extra) > 1 else ''} {', '.join(repr(e) for e in extra)} (the tool "
                f"takes {', '.join(repr(p) for p in props) or 'no arguments'})", [])
    named = [argument] if argument else []
    if validator == "type":
        return (f"'{argument}' must be a {error.validator_value}, got {_short(instance)} "
                f"({type(instance).__name__})", named)
    if validator in ("pattern", "format"):
        return f"'{argument}' is {_short(instance)}, which is not in the expected format", named
    if validator == "enum":
        return f"'{argument}' is {_short(instance)}, which is not one of the allowed values", named
    if argument:
        return f"'{argument}' is {_short(instance)}, which breaks the schema's '{validator}' rule", [argument]
    return f"the arguments break the schema's '{validator}' rule", []


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."
