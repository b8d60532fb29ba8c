"""What belongs to the response rather than to the answer: a failure by its protocol's own rule, a failure
that passes by itself, the response's own clock, and its own count of calls, as the answers show them
(results.py and the guard use them)."""
from __future__ import annotations

import ast
import builtins
import errno
import re
from http import HTTPStatus
from typing import Any

from ...core.canonical import clean_text
from ...core.toolresult import read_result
from .statuses import ERROR_PHRASES
from .words import words

# RFC 3339's date-time (section 5.6, ISO 8601's extended form, what JSON Schema's `format: date-time` names)
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def parse_result(content: str) -> tuple[bool, Any]:
    """(ok, payload) of a tool result, as `read_result` reads it; plain text comes back normalised. An
    object that is an error response by its own format's rule fails too (`is_error_envelope`)."""
    ok, payload = read_result(content)
    if ok and isinstance(payload, dict) and is_error_envelope(payload):
        return False, payload
    return ok, clean_text(payload) if payload is content else payload  # `content` itself: it was not JSON


def is_error_envelope(body: dict) -> bool:
    """An error and nothing else, by the format's own rule: JSON-RPC 2.0's `error` without a `result`; an
    object whose one member is `error` (the "data or error" envelope of Google's JSON style guide, Stripe's);
    GraphQL's `errors` without `data`, or one GraphQL error (`message` with its `extensions`, no `data`); the
    Jupyter messaging protocol's reply with `status: "error"` and the exception's `ename` and `evalue`.
    A resource that carries an `error` beside its state (`{"state": "failed", "error": "OOM"}`) is an answer."""
    if body.get("status") == "error" and {"ename", "evalue"} <= body.keys():
        return True  # the Jupyter messaging protocol's error reply: an execution that raised
    if not (body.get("error") or body.get("errors")) or body.get("data") is not None:
        return False
    if "jsonrpc" in body or set(body) == {"error"}:
        return "result" not in body
    return bool(body.get("errors")) or ("message" in body and isinstance(body.get("extensions"), dict))


def owned_moments(before: tuple[str, dict[str, Any]], now: tuple[str, dict[str, Any]]) -> set[str]:
    """The moments two answers to one call, each (fingerprint without moments, moments), show to be the
    resource's own: those that moved together with the rest of the answer (a run's `updated_at` beside its
    status). One that alone moved stays the response's: a stuck job with a fresh `checked_at` is stuck."""
    (was, then), (is_, moments) = before, now
    return {k for k, v in moments.items() if k in then and then[k] != v} if was != is_ else set()


def without_call_counts(content: Any, run: int, counted: set[str]) -> tuple[Any, set[str]]:
    """A number that rose by one with each call of the tool, equal to the call's own number, from calls whose
    arguments differ in numbers alone, counts the calls, not the world (a thinking tool's
    `thoughtHistoryLength` for one thought sent again): it is the response's, never news; the guard passes
    `counted` empty when the words changed (hosts h01, h02... with loads 1, 2... are answers). Returns the
    content without the top-level members `counted` says did so last time and that still do, and the members
    that equal `run` now (the guard keeps them for the next call). `run` is this call's number, 1-based, among
    the tool's answered calls. A total that happens to equal the call number once stays content."""
    if not isinstance(content, dict):
        return content, set()
    now = {k for k, v in content.items() if type(v) is int and v == run}
    if not counted & now:
        return content, now
    return {k: v for k, v in content.items() if k not in counted or k not in now}, now


def still_to_come(content: Any, is_moment) -> bool:
    """Does an answer name a moment it has no value for yet (`"finished_at": null` beside a run's `started_at`)?
    Then the resource says of itself that something is still to happen: asking again is how to see it happen.
    `is_moment(key)`: does a key name a moment (metadata.py's rule for names)."""
    if isinstance(content, dict):
        return any((v is None and is_moment(k)) or still_to_come(v, is_moment) for k, v in content.items())
    return isinstance(content, list) and any(still_to_come(v, is_moment) for v in content)


# A line's leading name and colon (`status: in_progress`), the name a printed record gives its value.
_LABEL = re.compile(r"^[ \t]*[^\s:]+:(?=\s|$)", re.MULTILINE)
# The words of values an acknowledgement holds: one token (an id it created, a status word).
_WORDS = 1


def reports(content: Any) -> bool:
    """Does an answer carry content, more than an acknowledgement? An acknowledgement says that something was
    done and names it: flags, nulls and single tokens (an id it created, a status word), as
    `{"success": true, "record_id": "w_101"}` does. Content is what a read brings: text of more than one word (as
    words.py counts them, "订单正在打包，尚未发货。" ten), a measure (a number with a fraction), or anything that
    holds one (a log's last lines, a page, an average).
    A name a text prints before a colon at the start of a line labels the value after it, as a JSON member's
    name does, and is no word of the answer: `status: in_progress` is judged as `{"status": "in_progress"}` is,
    while "Memory saved." stays two words and two values printed one a line (`gpu0: busy`, `gpu1: busy`) a
    listing. `content`: the answer with the call's own echoes removed."""
    if isinstance(content, str):
        printed = python_literal(content)
        return reports(printed) if printed is not None else len(words(_LABEL.sub(" ", content))) > _WORDS
    if isinstance(content, float):
        return not content.is_integer()
    if isinstance(content, dict):
        return any(reports(v) for v in content.values())
    if isinstance(content, list):
        return any(reports(v) for v in content)
    return False


def python_literal(text: str) -> Any:
    """The structure a text prints as a Python literal where it nests records (`[{'affected_rows': 1}]`, the rows
    an MCP server written in Python returns as `str(rows)`; a message of fields), or None: nested records are judged
    as the same structure in JSON would be. A flat list or dict of plain values is what a program printed (a
    listing `['part-0000.parquet', 'part-0001.parquet']`, states `{'gpu0': 'busy'}`), read by its words as any
    printed text: a listing polled while a job writes is no acknowledgement."""
    text = text.strip()
    if text[:1] not in ("[", "{") or len(text) > 10_000:  # a longer text is content whatever its form
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    nested = inner is not None and any(isinstance(v, (dict, list, tuple)) for v in inner)
    return value if nested else None


def is_date_time(value: Any) -> bool:
    """Is a value a moment by its standard form, an RFC 3339 date-time, whatever its key names? The guard keeps
    it as content until it moved alone across identical calls (books.py); `without_metadata` drops it
    (metadata.py). A date alone ("2026-12-01") is content."""
    return type(value) is str and len(value) >= 20 and bool(_DATE_TIME.match(value))


# A failure that passes by itself, as the standards name it: a connection refused, reset, aborted or timed out
# (the errnos Python raises as ConnectionError or TimeoutError, PEP 3151's table in OSError, and those exceptions'
# own names; Winsock's codes for the same errors) or a host or network unreachable; a name lookup that failed
# for now (getaddrinfo's EAI_AGAIN, POSIX); HTTP 408, 429, 502, 503 and 504 (RFC 9110, RFC 6585), by their codes or,
# in a failure, by the reason phrase the RFCs pair with each, ending a clause ("Too Many Requests: retry later"; not
# "Too Many Requests handling", a subject, nor the phrase in an answer with no error flag: `states_transient`); gRPC's
# UNAVAILABLE and DEADLINE_EXCEEDED; a Retry-After (RFC 9110 section 10.2.3) the failure carries as a member of
# that name in any spelling (Discord's and Telegram's `retry_after`): the server says when it will pass; the APIs'
# own fields: `retryable: true` (VMware Cloud on AWS's ErrorResponse), Slack's `ratelimited`, Anthropic's
# `rate_limit_error` and `overloaded_error`.
# **An HTTP status is a number IANA registers as one, under a member named for it as RFC 9110 names it, "status
# code", in any spelling: a name whose last word is "status" or "code"** (`status`, `statusCode`, `http_status`,
# Telegram's `error_code`); it must not read a number under any other name (`count: 429`, `id: 503`).
# Not transient: gRPC's RESOURCE_EXHAUSTED, a quota, which Google's retry guidance (AIP-194) says generally should
# not be retried, as it may not pass for hours; a vendor's own word for a rate limit that no standard defines and
# its answer does not mark as retryable (OpenAI's `code: rate_limit_exceeded`, GitHub GraphQL's `type:
# RATE_LIMITED`, AWS's `ThrottlingException`): such an answer is transient when it also carries the standard's
# status (429) or a Retry-After, as those APIs' HTTP answers do; GitHub's 403 "API rate limit exceeded" is a 403,
# which RFC 9110 says the client should not repeat, unless it carries a Retry-After. A name or code read before a
# text in the system's own language ("ConnectionRefusedError: [Errno 111] Verbindungsaufbau abgelehnt") decides.
_ERRNOS = {code for code in errno.errorcode if isinstance(OSError(code, ""), (ConnectionError, TimeoutError))} \
    | {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ENETDOWN}
_EXCEPTIONS = sorted(name for name, kind in vars(builtins).items()  # ConnectionRefusedError, BrokenPipeError...
                     if isinstance(kind, type) and issubclass(kind, (ConnectionError, TimeoutError)))
# Windows Sockets' codes for the errnos above (WSAENETDOWN ... WSAEHOSTUNREACH), as Python prints them
# ("[WinError 10061]") and Windows' own texts for the three a client meets (refused, reset, timed out).
_WINSOCK = {"WSAENETDOWN": 10050, "WSAENETUNREACH": 10051, "WSAECONNABORTED": 10053, "WSAECONNRESET": 10054,
            "WSAETIMEDOUT": 10060, "WSAECONNREFUSED": 10061, "WSAEHOSTUNREACH": 10065}
_WINSOCK_TEXT = ["the target machine actively refused it", "forcibly closed by the remote host",
                 "did not properly respond after a period of time"]
# The C library's words for them (strerror, the same on glibc and BSD); a timeout is known by its words said as a
# failure, never by one library's code for it: the event ("timed out", ETIMEDOUT's "Connection timed out"), an error
# named for it (Python's TimeoutError, a client's "Headers Timeout Error"), or "timeout" closing a clause ("Error:
# request timeout."). Words about a timeout ("the timeout argument must be positive", `'timeout'`) are no timeout.
_STRERROR = {errno.ECONNREFUSED: "connection refused", errno.ECONNRESET: "connection reset by peer",
             errno.ECONNABORTED: "software caused connection abort", errno.EPIPE: "broken pipe",
             errno.EHOSTUNREACH: "no route to host", errno.ENETUNREACH: "network is unreachable",
             errno.ENETDOWN: "network is down"}
TRANSIENT_STATUSES = {HTTPStatus.REQUEST_TIMEOUT, HTTPStatus.TOO_MANY_REQUESTS, HTTPStatus.BAD_GATEWAY,
                      HTTPStatus.SERVICE_UNAVAILABLE, HTTPStatus.GATEWAY_TIMEOUT}
_GRPC = {"UNAVAILABLE", "DEADLINE_EXCEEDED"}
_PROVIDER_CODES = {"ratelimited", "rate_limit_error", "overloaded_error"}
_CODE_KEYS = {"error", "type"}  # where Slack and Anthropic put their own codes (gRPC's: a status member, or these)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # a member name's words: statusCode, http_status
_REGISTERED = {s.value for s in HTTPStatus}  # IANA's HTTP Status Code Registry, as Python holds it
_PHRASES = "|".join(re.escape(phrase) for phrase in [s.phrase for s in HTTPStatus if s.value < 400]
                     + [p for phrases in ERROR_PHRASES.values() for p in phrases])
_TEXT = re.compile(
    r"\b(" + "|".join(errno.errorcode[c] for c in sorted(_ERRNOS)) + r")\b"  # an errno name (Node's `connect ECONNREFUSED`)
    r"|(" + "|".join(re.escape(w) for w in _STRERROR.values()) + r")"  # the C library's words
    r"|(timed[ -]?out|time-?out ?(?:error|exception)"  # a timeout said as one: the event, an error named for it
    r"|(?<![\w'\"`.$/-])time[ -]?out(?=\s*(?:$|[.,;:)\]!])))"  # or the clause's last word ("request timeout.")
    r"|\bHTTP(?:/[0-9.]+)? +([1-5][0-9]{2})\b"  # a status line, or the protocol's name and a status ("HTTP 503")
    r"|\b([1-5][0-9]{2}) +(?:" + _PHRASES + r")\b"  # a status code and its reason phrase ("504 Gateway Timeout")
    r"|\bstatus(?: code)?[:= ]+([1-5][0-9]{2})\b"  # "status code 503", "status: 429"
    r"|\bStatusCode\.(UNAVAILABLE|DEADLINE_EXCEEDED)\b|\bcode = (Unavailable|DeadlineExceeded)\b"  # gRPC's own
    r"|(?-i:\b(" + "|".join([*_EXCEPTIONS, "EAI_AGAIN", *_WINSOCK]) + r")\b)"  # PEP 3151's, POSIX's, Winsock's names
    r"|(\[WinError (?:" + "|".join(map(str, _WINSOCK.values())) + r")\]"  # a Winsock code as Python prints it
    r"|temporary failure in name resolution|" + "|".join(_WINSOCK_TEXT) + ")"  # EAI_AGAIN's and Windows' words
    r"|(?<![\w'\"`])(" + "|".join(re.escape(s.phrase) for s in TRANSIENT_STATUSES) + r")(?=\s*(?:$|[:.,;)\]!]))",
    re.IGNORECASE)  # and a transient status's reason phrase alone, ending a clause ("Too Many Requests: retry later")
_PHRASE = _TEXT.groups  # that last group's number
_SAID_BY = {s.phrase.casefold(): s.value for s in TRANSIENT_STATUSES}


def _code(found: re.Match) -> Any:
    """The HTTP status a match of `_TEXT` gives: its digits, or the status its reason phrase is said for (RFC 9110
    section 15 pairs each code with one), or None."""
    if found.group(_PHRASE):
        return _SAID_BY[found.group(_PHRASE).casefold()]
    return next((int(g) for g in found.groups() if g and g.isdigit()), None)


def transient(body: Any) -> bool:
    """Did a failure pass by itself: a refused, reset or unreachable connection, a timeout, an HTTP 408, 429, 502,
    503 or 504, gRPC's UNAVAILABLE or DEADLINE_EXCEEDED, or an API's own retryable field, where it appears in the
    answer (a status field, a status line, an errno, exception or Winsock name or code, the C library's words)? A
    name or code decides whatever language the words after it are in. Such a failure changed nothing,
    so the same call may be sent again. A failure that also names another 4xx status (400, 404, 422: the input is
    wrong) is not transient, whatever else it says; an answer's own `retryable` field outranks its words (a tool
    withdrawn after its timeouts says `retryable: false`). A timeout is known by words that say one happened
    ("timed out", "Headers Timeout Error"), never by words about one ("the timeout argument must be positive", a
    field named `'timeout'` the tool refused: the input's fault). `body`: a failed call's answer, parsed or as text."""
    said = [value for key, value in member_leaves(body) if key.lower() == "retryable" and isinstance(value, bool)]
    if said:
        return said[0]
    passing = wrong = False
    for key, value in member_leaves(body):
        if names_a_status(key) and _status(value) is not None:
            passing |= _status(value) in TRANSIENT_STATUSES
            wrong |= 400 <= _status(value) < 500 and _status(value) not in TRANSIENT_STATUSES
        elif isinstance(value, str) and (key in _CODE_KEYS or names_a_status(key)) \
                and (value in _GRPC or value in _PROVIDER_CODES):
            passing = True
        elif _words(key) == ["retry", "after"] and _retry_after(value):
            passing = True
        elif isinstance(value, str):
            for found in _TEXT.finditer(value):
                code = _code(found)
                passing |= code is None or code in TRANSIENT_STATUSES
                wrong |= code is not None and 400 <= code < 500 and code not in TRANSIENT_STATUSES
    return passing and not wrong


def states_transient(line: str) -> bool:
    """Does one line of text state a transient failure in a standard's own form (an errno's name or words, "timed
    out", an error named for a timeout, an HTTP status line or code with its reason phrase, gRPC's code), not only
    name one? "Set timeout." names a setting, and a reason phrase without its code ("We retry on Too Many
    Requests.") quotes one: a clause that ends on either is a failure only in an answer already flagged as failed
    (`transient`)."""
    return transient(line) and any(not (found.group(3) and re.fullmatch(r"time[ -]?out", found.group(3), re.I))
                                   and not found.group(_PHRASE) for found in _TEXT.finditer(line))


def timed_out(body: Any) -> bool:
    """Did a failure say its answer did not come in time: a timeout said as one ("timed out"), an HTTP 504, gRPC's
    DEADLINE_EXCEEDED? The request went out and may have been carried out (gRPC says so of DEADLINE_EXCEEDED), so
    what it did is unknown, unlike a refused connection or a 503, which the server never acted on."""
    for key, value in member_leaves(body):
        if names_a_status(key) and _status(value) == HTTPStatus.GATEWAY_TIMEOUT:
            return True
        if isinstance(value, str) and (value == "DEADLINE_EXCEEDED" or any(
                found.group(3) or re.search(r"time[ -]?out$", found.group(_PHRASE) or "", re.I)  # "Request Timeout"
                or "deadline" in (found.group(7) or found.group(8) or "").casefold()
                or _code(found) == HTTPStatus.GATEWAY_TIMEOUT for found in _TEXT.finditer(value))):
            return True
    return False


def says_final(body: Any) -> bool:
    """Does a failure say of itself that it will not pass, in its own `retryable: false` (the field that outranks
    its words in `transient`)? Then it is known to recur, and sent again unchanged it is the repeat before it runs;
    a failure that says nothing of it (a vendor's "Couldn't connect to compute node") may not recur."""
    return any(key.lower() == "retryable" and value is False for key, value in member_leaves(body))


def names_a_status(key: str) -> bool:
    """Is a member named for an HTTP status as RFC 9110 names it, "status code": does its name's last word, in
    any spelling (statusCode, http_status, error_code, HTTPStatus), say status or code?"""
    words = _words(key)
    return bool(words) and words[-1] in ("status", "code")


def _words(key: str) -> list[str]:
    return [w.lower() for w in _NAME_WORDS.findall(str(key))]


def _status(value: Any) -> Any:
    """The HTTP status a member holds (a number, or digits) when IANA registers it as one, or None."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    return value if type(value) is int and value in _REGISTERED else None


def _retry_after(value: Any) -> bool:
    """Does a member say when to retry, as Retry-After does: a number of seconds (or a date, as text)?"""
    return (type(value) in (int, float) and value >= 0) or isinstance(value, str) and bool(value.strip())


def member_leaves(value: Any, key: str = "") -> list[tuple[str, Any]]:
    """(key, value) of every scalar in an answer, each with the name of the member that holds it."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in member_leaves(v, str(k))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in member_leaves(v, key)]
    return [(key, value)]
