"""Lesson 5: the tool-error taxonomy, in one place.

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
`retryable` flag: one place decides. What the model reads is built in translate.py, and it never
holds an exception's text (redaction.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ...sim.tools import ToolOutcome


@dataclass(frozen=True)
class Kind:
    retryable: bool  # may the code try the same call again?
    tool_fault: bool  # does it count against the tool's circuit breaker?
    summary: str  # what happened, completing "'<tool>' ..."
    instruction: str  # what the model should do next


# Short on purpose: the model reads every error on every later request, so each word is paid for again
# and again (issue 8: the guarded loop stays within 1.1x the naive loop's tokens + 300).
_GAVE_UP = "Already retried. Do not call it again now: use another tool, or answer with what you have."
WITHOUT_IT = "Use another tool if one is listed, or answer with what you have and say what is missing."

KINDS: dict[str, Kind] = {
    "timeout": Kind(True, True, "timed out", _GAVE_UP),
    "connection_error": Kind(True, True, "could not be reached", _GAVE_UP),
    "rate_limited": Kind(True, True, "is rate-limited", _GAVE_UP),
    "unavailable": Kind(True, True, "is temporarily unavailable", _GAVE_UP),
    "internal_error": Kind(False, True, "failed with an internal error (not your arguments; a retry will not help)",
                           WITHOUT_IT),
    "invalid_argument": Kind(False, False, "rejected the arguments", "Correct the arguments and call it again."),
    "permission_denied": Kind(False, False, "refused: not permitted",
                              "Do not call it again. Tell the user what could not be done."),
    "not_found": Kind(False, False, "found nothing",
                      "Check the arguments; if they are right, tell the user nothing was found."),
    "rejected": Kind(False, False, "refused the request (a business rule)",
                     "The same request will be refused again: tell the user why, or change it as the reason says."),
    "invalid_json": Kind(False, False, "got arguments that are not a JSON object",
                         "Send the arguments as one JSON object matching the tool's schema."),
    "unknown_tool": Kind(False, False, "does not exist", "Call one of the available tools, by its exact name."),
    "tool_not_offered": Kind(False, False, "is not offered in this run", "Call one of the tools offered in this run."),
    "circuit_open": Kind(False, False, "is withdrawn for the rest of this run after repeated failures",
                         "Do not call it again. " + WITHOUT_IT),
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


ENVELOPES = ("response", "data", "result", "body", "payload")  # keys a service wraps its answer in
FAILED_STATUSES = frozenset({"failed", "failure", "error"})
STATUS_REPORT = frozenset({"status", "state", "message", "error", "errors", "error_code", "error_message", "code",
                           "reason", "reason_code", "detail", "details", "request_id", "trace_id", "timestamp"})


def business_failure(data: Any, depth: int = 0) -> Optional[Failure]:
    """HTTP 200 whose body says the call failed. The rule, in order:

    1. an explicit flag: `success: false` or `ok: false` (at the top, or in an envelope, rule 4);
    2. GraphQL: a response of only `errors` (a non-empty list of objects with a `message`), `data` null
       or absent, and `extensions`. Errors *with* data are a partial success: the data is kept; an
       `errors` field among other fields (a log's error lines) is data;
    3. a status report: a `status` (or `state`) of FAILED / FAILURE / ERROR (any case), or a non-empty
       `error`, in an object that holds nothing but the report (status, message, error, code, reason,
       ids...; a field that is null or empty does not count: `{"refund_id": null, "status": "FAILED"}`
       made no refund). An object with other fields, `{"job_id": "j1", "status": "failed"}`, is data
       about a job, not a failed call;
    4. the same rules inside one envelope, `{"response": {...}}`, `{"data": {...}}` (result, body,
       payload), up to three deep.
    The message and the code are read from the body or from its `error` object."""
    if not isinstance(data, dict) or depth > 3:
        return None
    errors = data.get("errors")
    failed = (data.get("success") is False or data.get("ok") is False
              or (_graphql_errors(errors) and data.get("data") is None and set(data) <= {"errors", "data", "extensions"})
              or ((_failed_status(data) or data.get("error") not in (None, "", {}, [], False))
                  and _only_a_report(data)))
    if failed:
        return _failure_from(data)
    for key in ENVELOPES:
        inner = data.get(key)
        if isinstance(inner, dict):
            found = business_failure(inner, depth + 1)
            if found:
                return found
    return None


def _only_a_report(data: dict[str, Any]) -> bool:
    """Nothing but the report: every other field is empty (`{"refund_id": null, "status": "FAILED"}` made
    no refund; `{"job_id": "j1", "status": "failed"}` is a job that exists and failed)."""
    return all(key in STATUS_REPORT or value in (None, "", [], {}) for key, value in data.items())


def _graphql_errors(errors: Any) -> bool:
    """GraphQL's error list: each entry an object with a `message` (a list of log lines is not one)."""
    return isinstance(errors, list) and bool(errors) and all(isinstance(e, dict) and "message" in e for e in errors)


def _failed_status(data: dict[str, Any]) -> bool:
    status = data.get("status", data.get("state"))
    return isinstance(status, str) and status.strip().lower() in FAILED_STATUSES


def _failure_from(data: dict[str, Any]) -> Failure:
    error = data.get("error")
    errors = data.get("errors")
    first = error if isinstance(error, dict) else errors[0] if isinstance(errors, list) and errors and \
        isinstance(errors[0], dict) else {}
    detail = (data.get("error_message") or data.get("message") or data.get("reason") or data.get("detail")
              or first.get("message") or (error if isinstance(error, str) else None))
    extensions = first.get("extensions")  # GraphQL puts its code there
    code = (data.get("error_code") or data.get("code") or data.get("reason_code") or first.get("code")
            or (extensions.get("code") if isinstance(extensions, dict) else None) or first.get("type"))
    return Failure("rejected", http_status=200, detail=detail if isinstance(detail, str) else None,
                   error_code=str(code) if code is not None and not isinstance(code, (dict, list)) else None)


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
