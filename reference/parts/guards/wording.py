"""What a call says in words and what an answer says at all, for the same-answer rule (answers.py): the wording
an answer quotes back, a command line spelled plainly, an answer that only acknowledges."""
from __future__ import annotations

import re
from typing import Any, Iterable, Optional

from ...core.canonical import clean_text

_UNQUOTED = re.compile(r"[\s\"'`\\]+")


def quoted_back(texts: Iterable[str]) -> Optional["re.Pattern[str]"]:
    """One pattern for the call's wording inside an answer's text, longest first, case aside."""
    texts = sorted(set(texts), key=len, reverse=True)
    return re.compile("|".join(re.escape(t) for t in texts), re.IGNORECASE) if texts else None


def plainly(texts: Iterable[Any]) -> str:
    """Texts spelled plainly: quotes, backslashes and spaces aside, case-folded, so that `grep -i "449"`,
    `grep -i '449'` and `grep  -i 449` are one command line."""
    return _UNQUOTED.sub("", " ".join(clean_text(str(t)).casefold() for t in texts))


def says_nothing(payload: Any) -> bool:
    """Nothing in it but zeros, falses, nulls and empty texts (`{"stdout": "", "exit_code": 0}`): an
    acknowledgement, not an answer."""
    if isinstance(payload, dict):
        return all(says_nothing(v) for v in payload.values())
    if isinstance(payload, list):
        return all(says_nothing(v) for v in payload)
    return payload in (None, "", 0, False)
