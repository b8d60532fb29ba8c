"""Lesson 5: the tool-error taxonomy, in one place, and how each error is put to the model.

Every failure a tool call can meet gets one `error_type`, and this table alone says whether the
code may try again (`retryable`) and whether it counts against the tool's circuit breaker
(`tool_fault`: the tool is sick, not the call):

    error_type         retryable  tool_fault  comes from
    timeout            yes        yes         TimeoutError (ToolTimeout), HTTP 408
    connection_error   yes        yes         ConnectionError (reset, refused, broken pipe)
    rate_limited       yes        yes         HTTP 429 (Retry-After honoured)
    unavailable        yes        yes         HTTP 5xx
    internal_error     no         yes         any other exception: a bug does not heal on retry
    invalid_argument   no         no          HTTP 400/422, or arguments that break the JSON Schema
    permission_denied  no         no          HTTP 401/403
    not_found          no         no          HTTP 404/410
    rejected           no         no          a business rule said no: HTTP 409/other 4xx, or
                                              HTTP 200 whose body says success: false
    invalid_json       no         no          the model's arguments are not a JSON object
    unknown_tool       no         no          no tool has that name
    tool_not_offered   no         no          the tool exists but was not offered in this run
    circuit_open       no         no          the tool was withdrawn after repeated failures

The decision is made from the HTTP status and the exception class, never from the tool's own
`retryable` flag: one place decides. What the model reads is built here too, and it never holds an
exception's text. Text that a tool wrote for its caller (a 400's message, a business rule's reason)
goes through `safe_text`, which fails closed: anything that looks like a stack trace, a file path,
SQL, a host name or a secret drops the whole text, and the model gets the generic sentence instead.
"""
from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any, Optional

from ..core.messages import ToolCall, ToolMessage
from ..sim.tools import ToolOutcome


@dataclass(frozen=True)
class Kind:
    retryable: bool  # may the code try the same call again?
    tool_fault: bool  # does it count against the tool's circuit breaker?
    summary: str  # what happened, completing "'<tool>' ..."
    instruction: str  # what the model should do next


_GAVE_UP = ("It was already retried automatically. Do not call it again with the same arguments now: use an "
            "alternative tool if one is listed, or answer with what you have and say what is missing.")
_WITHOUT_IT = "Use an alternative tool if one is listed, or answer with what you have and say what is missing."

KINDS: dict[str, Kind] = {
    "timeout": Kind(True, True, "did not answer in time", _GAVE_UP),
    "connection_error": Kind(True, True, "could not be reached (the connection failed)", _GAVE_UP),
    "rate_limited": Kind(True, True, "is rate-limited (too many requests)", _GAVE_UP),
    "unavailable": Kind(True, True, "is temporarily unavailable (a server error on its side)", _GAVE_UP),
    "internal_error": Kind(False, True, "failed with an internal error. This was not caused by your arguments, "
                                        "and calling it again will not help", _WITHOUT_IT),
    "invalid_argument": Kind(False, False, "rejected the arguments",
                             "Correct the arguments as described and call the tool again."),
    "permission_denied": Kind(False, False, "refused the request: it is not permitted",
                              "Do not call it again: the same request will be refused. Tell the user what could "
                              "not be done, or use an alternative tool if one is listed."),
    "not_found": Kind(False, False, "found nothing for these arguments",
                      "Check the arguments (spelling, id, date). If they are right, tell the user that nothing "
                      "was found: the same call returns the same answer."),
    "rejected": Kind(False, False, "understood the request and refused it (a business rule)",
                     "The same request will be refused again. Tell the user the reason, or change the request "
                     "if the reason says how."),
    "invalid_json": Kind(False, False, "was called with arguments that are not a valid JSON object",
                         "Send the arguments again as one JSON object that matches the tool's schema."),
    "unknown_tool": Kind(False, False, "does not exist", "Call one of the available tools, by its exact name."),
    "tool_not_offered": Kind(False, False, "is not offered in this run", "Call one of the tools offered in this run."),
    "circuit_open": Kind(False, False, "has been withdrawn for the rest of this run after repeated failures",
                         "Do not call it again. " + _WITHOUT_IT),
}
RETRYABLE = frozenset(t for t, k in KINDS.items() if k.retryable)
MALFORMED = frozenset({"invalid_json", "unknown_tool", "tool_not_offered", "circuit_open"})  # never ran


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified. `detail` is text the tool wrote for its caller (never an
    exception's text) and reaches the model only through `safe_text`."""

    error_type: str
    http_status: Optional[int] = None
    retry_after: Optional[float] = None
    detail: Optional[str] = None
    error_code: Optional[str] = None
    exception: Optional[str] = None  # the class name, for the trace; never shown to the model

    @property
    def kind(self) -> Kind:
        return KINDS[self.error_type]

    @property
    def retryable(self) -> bool:
        return self.kind.retryable

    @property
    def tool_fault(self) -> bool:
        return self.kind.tool_fault


# ---------------------------------------------------------------- classification

def kind_for_status(status: int) -> str:
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limited"
    if status >= 500:
        return "unavailable"
    if status in (400, 422):
        return "invalid_argument"
    if status in (401, 403):
        return "permission_denied"
    if status in (404, 410):
        return "not_found"
    return "rejected"  # 409 and the other 4xx: the service understood and said no


def classify_exception(exc: BaseException) -> Failure:
    """What a raised exception means. Its text is never kept: only the class name, for the trace."""
    name = type(exc).__name__
    if isinstance(exc, TimeoutError):  # ToolTimeout, socket.timeout
        return Failure("timeout", exception=name)
    if isinstance(exc, ConnectionError):  # reset, refused, aborted, broken pipe
        return Failure("connection_error", exception=name)
    status = getattr(exc, "status_code", None)  # HTTP client errors (an SDK's APIStatusError has one)
    if isinstance(status, int) and status >= 400:
        return Failure(kind_for_status(status), http_status=status, exception=name,
                       retry_after=_number(getattr(exc, "retry_after", None)))
    return Failure("internal_error", exception=name)


def business_failure(data: Any) -> Optional[Failure]:
    """HTTP 200 whose body says it failed: `success: false` (or `ok: false`). The explicit flags only:
    a job whose *status* is "failed" is data about the job, not a failed call."""
    if isinstance(data, dict) and (data.get("success") is False or data.get("ok") is False):
        detail = data.get("error_message") or data.get("message") or data.get("error")
        code = data.get("error_code") or data.get("code")
        return Failure("rejected", http_status=200, detail=detail if isinstance(detail, str) else None,
                       error_code=str(code) if code is not None else None)
    return None


def classify_outcome(outcome: ToolOutcome) -> Optional[Failure]:
    """None when the call really succeeded; the tool's own `retryable` flag is deliberately ignored."""
    if outcome.ok:
        return business_failure(outcome.data)
    status = outcome.http_status
    if status >= 400:
        error_type = kind_for_status(status)
    else:  # a failure reported without an HTTP error status: trust its type only if we know it
        error_type = outcome.error_type if outcome.error_type in KINDS else "rejected"
    return Failure(error_type, http_status=status, retry_after=_number(outcome.retry_after), detail=outcome.message)


def _number(value: Any) -> Optional[float]:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


# ---------------------------------------------------------------- what may reach the model

LEAK_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("stack trace", re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+"
                               r"|\bat [\w.$]+\(\w+\.\w+:\d+\)")),  # Python, and Java-style frames
    ("exception class", re.compile(r"\b[A-Za-z_][\w.]*(?:Error|Exception)\b")),
    ("file path", re.compile(r"(?:^|[\s'\"(=:])(?:~|\.{1,2})?/[\w.@-]+/[\w.@/-]+|\b[A-Za-z]:\\[\w\\. -]+")),
    ("SQL", re.compile(r"(?is)\b(?:select\b.+\bfrom|insert\s+into|update\b.+\bset|delete\s+from|drop\s+table|"
                       r"alter\s+table|create\s+table)\b")),
    ("host name", re.compile(r"(?i)\b(?:[a-z0-9-]+\.)+(?:internal|local|lan|corp|intra|intranet|svc|cluster|"
                             r"com|net|org|io|cn|cloud)\b"  # a dotted name in a usual domain
                             r"|\b\d{1,3}(?:\.\d{1,3}){3}\b"  # an IPv4 address
                             r"|\b[a-z][\w-]*(?:\.[\w-]+)+:\d{2,5}\b")),  # host:port
    ("URL", re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://")),
    ("secret", re.compile(r"(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|"
                          r"authorization|credentials?|dsn)\b\s*[:=]|\bbearer\s+[\w.~+/-]{8,}|\bsk-[\w-]{8,}|"
                          r"\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----|\bpassword\b")),
]
MAX_DETAIL_CHARS = 300


def leaks(text: str) -> list[str]:
    """The kinds of internal detail found in `text` (empty when none)."""
    return [name for name, pattern in LEAK_PATTERNS if pattern.search(text)]


def safe_text(text: Any) -> Optional[str]:
    """`text` if it may be shown to the model, else None. Fails closed: a redacted stack trace is
    still noise, so anything suspicious, multi-line or long drops the whole text."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text or "\n" in text or len(text) > MAX_DETAIL_CHARS or leaks(text):
        return None
    return text


_ERROR_CODE = re.compile(r"^[A-Z][A-Z0-9_.-]{0,63}$")


def safe_code(code: Optional[str]) -> Optional[str]:
    return code if code and _ERROR_CODE.match(code) else None


# ---------------------------------------------------------------- translation

def error_message(call: ToolCall, error_type: str, message: str, **fields: Any) -> ToolMessage:
    """The tool result the model reads: structured, with `ok`, `error_type` and `retryable` first
    (the same shape as a tool's own error, and as the loop guard's interventions)."""
    body: dict[str, Any] = {"ok": False, "error_type": error_type, "retryable": False, "message": message}
    body.update({k: v for k, v in fields.items() if v not in (None, [], "")})
    body.setdefault("instruction", KINDS[error_type].instruction if error_type in KINDS else _WITHOUT_IT)
    return ToolMessage(call.id, json.dumps(body, ensure_ascii=False), is_error=True)


def translate(call: ToolCall, failure: Failure, *, schema: Optional[dict[str, Any]] = None,
              attempts: int = 1, alternatives: Optional[list[str]] = None, gave_up: Optional[str] = None,
              clock_today: Optional[dt.date] = None) -> ToolMessage:
    """A failed call, as a result the model can act on: what happened, which argument, what was
    expected with an example, which other tool to use, what to do next. Never an exception's text."""
    kind = failure.kind
    message = f"'{call.name}' {kind.summary}."
    detail = safe_text(failure.detail)
    if detail:
        message += f" The service said: {detail}"
    fields: dict[str, Any] = {}
    if failure.error_type == "rejected":
        fields["error_code"] = safe_code(failure.error_code)
    if failure.retryable:  # the code already retried: tell the model it should not
        message += f" Tried {attempts} time{'s' if attempts != 1 else ''}" + (f"; {gave_up}" if gave_up else "") + "."
        fields["attempts"] = attempts
        if failure.retry_after is not None:
            fields["retry_after"] = failure.retry_after
    if failure.error_type == "invalid_argument" and schema is not None:
        fields.update(argument_help(schema, mentioned_argument(schema, detail), clock_today))
    fields["alternatives"] = alternatives or None
    return error_message(call, failure.error_type, message, **fields)


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
