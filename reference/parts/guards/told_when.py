"""When a server told the client to come back: an HTTP 503 or 429 response's Retry-After (RFC 9110 section 10.2.3,
RFC 6585) and the moment the server answered, its Date (RFC 9110 section 6.6.1), read from the response text
wherever it appears in an answer: in its text or as members. The log holds no clock of its own; the server's Date is
one.

A refusal that said when to come back and was sent again is judged early only by the server's clock: the next
refusal's Date comes before the first's Date plus its Retry-After. It must not fire on a 429 with `Retry-After: 1`
answered again with no Date, or with a Date two seconds later; it still catches a refusal with `retry-after: 30`
answered again within the same second.
"""
from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from typing import Any, Optional

from .arguments import argument_leaves
from .metadata import key_name
from .responses import names_a_status
from .state import GuardedCall

# An answer that is an HTTP response telling the client to come back later (RFC 9110: 503 Service Unavailable,
# RFC 6585: 429 Too Many Requests) and when, wherever the response text appears: its status line ("HTTP/2 429", or
# "HTTP 429" as some clients print it) and header fields each open a line, or a run of words once a plain-text
# answer's lines are joined. Retry-After is delay-seconds or an HTTP-date, and the Date an IMF-fixdate ("Tue, 02 Jun
# 2026 12:00:01 GMT"); an answer that carries the response as members names its status code and the header by its
# field name in any spelling (`{"status": 429, "headers": {"Retry-After": "2"}}`).
_FIXDATE = r"[A-Za-z]{3}, [0-9]{2} [A-Za-z]{3} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT"
_STATUS = re.compile(r"(?:^|\s)HTTP(?:/[0-9.]+)? +(503|429)\b")
_RETRY_AFTER = re.compile(r"(?:^|\s)retry-after: *([0-9]+(?!\S)|" + _FIXDATE + ")", re.IGNORECASE)
_DATE = re.compile(r"(?:^|\s)date: *(" + _FIXDATE + ")", re.IGNORECASE)
_HEADER, _DATE_HEADER = key_name("Retry-After"), key_name("Date")


def retry_after(a: GuardedCall) -> Optional[float]:
    """The seconds an answer's HTTP 503 or 429 response asked the client to wait, if it asked, whether the answer
    reads as a success (a shell printing the response) or a failure. An HTTP-date gives the seconds from the
    response's own Date, and none without one."""
    for text in _responses(a):
        if after := _RETRY_AFTER.search(text):
            return _delay(after.group(1), _answered_at(a))
    leaves = _members(a)
    for key, value in leaves:
        if key == _HEADER and value is not None:
            return _delay(str(value).strip(), _answered_at(a))
    return None


def _delay(value: str, sent: Optional[float]) -> Optional[float]:
    """Retry-After's delay in seconds: its delay-seconds, or its HTTP-date less the response's Date."""
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", value):
        return float(value)
    at = _moment(value)
    return max(at - sent, 0.0) if at is not None and sent is not None else None


def came_early(last: GuardedCall, then: GuardedCall) -> bool:
    """Did the server's own clock show `then`, the same request sent again after the refusal `last`, arriving before
    the Retry-After `last` gave had passed: both answered a 503 or 429 with a Date, and `then`'s is earlier than
    `last`'s plus its Retry-After?"""
    seconds = retry_after(last) if last.ran else None
    first, second = _answered_at(last), _answered_at(then) if then.ran else None
    return seconds is not None and first is not None and second is not None and second - first < seconds


def _answered_at(a: GuardedCall) -> Optional[float]:
    """The moment, in seconds since the epoch, an answer's 503 or 429 response says the server sent it (its Date)."""
    for text in _responses(a):
        if found := _DATE.search(text):
            return _moment(found.group(1))
    return next((_moment(str(v)) for k, v in _members(a) if k == _DATE_HEADER), None)


def _moment(text: str) -> Optional[float]:
    """An IMF-fixdate's moment in seconds since the epoch, or None for any other text."""
    if not re.fullmatch(_FIXDATE, text.strip()):
        return None
    try:
        return parsedate_to_datetime(text.strip()).timestamp()
    except (TypeError, ValueError):
        return None


def _responses(a: GuardedCall) -> list[str]:
    """The texts of an answer that hold an HTTP 503 or 429 response's status line."""
    return [text for _, text in argument_leaves(_answer(a)) if isinstance(text, str) and _STATUS.search(text)]


def _members(a: GuardedCall) -> list[tuple[str, Any]]:
    """An answer's members, when one of them names an HTTP status code that is 503 or 429 (`"status": 429`)."""
    leaves = argument_leaves(_answer(a)) if isinstance(_answer(a), (dict, list)) else []
    refused = any(names_a_status(k) and str(v).strip() in ("429", "503") for k, v in leaves)
    return leaves if refused else []


def _answer(a: GuardedCall) -> Any:
    return a.content if a.content is not None else a.answer
