"""When a server told the client to come back: an HTTP 503 or 429 response's Retry-After (RFC 9110 section 10.2.3,
RFC 6585) and the moment the server answered, its Date (RFC 9110 section 6.6.1), read from the response text
wherever it appears in an answer. The log holds no clock of its own; the server's Date is one.

A refusal that said when to come back and was sent again is judged early only by the server's clock: the next
refusal's Date comes before the first's Date plus its Retry-After. It must not fire on a 429 with `Retry-After: 1`
answered again with no Date, or with a Date two seconds later; it still catches a refusal with `retry-after: 30`
answered again within the same second.
"""
from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from typing import Optional

from .arguments import argument_leaves
from .state import GuardedCall

# An answer that is an HTTP response telling the client to come back later (RFC 9110: 503 Service Unavailable,
# RFC 6585: 429 Too Many Requests) and when (Retry-After in seconds), wherever the response text appears: its status
# line and header field each open a line, or a run of words once a plain-text answer's lines are joined. Its Date is
# the IMF-fixdate RFC 9110 requires a sender to generate ("Tue, 02 Jun 2026 12:00:01 GMT").
_STATUS = re.compile(r"(?:^|\s)HTTP/[0-9.]+ +(503|429)\b")
_RETRY_AFTER = re.compile(r"(?:^|\s)retry-after: *([0-9]+)(?!\S)", re.IGNORECASE)
_DATE = re.compile(r"(?:^|\s)date: *([A-Za-z]{3}, [0-9]{2} [A-Za-z]{3} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT)",
                   re.IGNORECASE)


def retry_after(a: GuardedCall) -> Optional[float]:
    """The seconds an answer's HTTP 503 or 429 response asked the client to wait, if it asked, whether the answer
    reads as a success (a shell printing the response) or a failure."""
    for text in _responses(a):
        if after := _RETRY_AFTER.search(text):
            return float(after.group(1))
    return None


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
            try:
                return parsedate_to_datetime(found.group(1)).timestamp()
            except (TypeError, ValueError):
                return None
    return None


def _responses(a: GuardedCall) -> list[str]:
    """The texts of an answer that hold an HTTP 503 or 429 response's status line."""
    return [text for _, text in argument_leaves(a.content if a.content is not None else a.answer)
            if isinstance(text, str) and _STATUS.search(text)]
