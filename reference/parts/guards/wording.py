"""What a call says in words and what an answer says at all, for the same-answer rule (answers.py): the wording
an answer quotes back, a command line spelled plainly, one text respelled, an answer that only acknowledges."""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable

from ...core.canonical import clean_text

_UNQUOTED = re.compile(r"[\s\"'`\\]+")


def unquoted(text: str, wording: Iterable[str]) -> str:
    """The text without the call's wording quoted back in it (longest first, case aside)."""
    said = sorted(set(wording), key=len, reverse=True)
    return re.compile("|".join(re.escape(t) for t in said), re.IGNORECASE).sub("", text) if said else text


def plainly(texts: Iterable[Any]) -> str:
    """Texts spelled plainly: quotes, backslashes and spaces aside, case-folded, so that `grep -i "449"`,
    `grep -i '449'` and `grep  -i 449` are one command line."""
    return _UNQUOTED.sub("", " ".join(clean_text(str(t)).casefold() for t in texts))


def respelled(u: str, v: str) -> bool:
    """Are two texts one text, case, spacing and the punctuation around it aside (Unicode's categories: "How
    long?" and "how long", "¿Cuánto?" and "cuánto")? Punctuation inside stays (`C++` is not `C`, `a.py` not `a_py`),
    and so do a leading or closing dash (`-5 degrees` is not `5 degrees`, `--force push` not `force push`) and the
    case of what is quoted (`name = 'Bob'` is not `name = 'bob'`: a string literal is case-sensitive in ISO SQL)."""
    return _bare(u) == _bare(v)


# A quoted run, in single or double quotes: a literal, whose case is its own.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _bare(text: str) -> str:
    """The text folded outside its quotes, its spaces single, without the punctuation (dashes aside) and spaces
    that open or close it."""
    spaced = clean_text(text)
    words, at = "", 0
    for quoted in _QUOTED.finditer(spaced):
        words += spaced[at:quoted.start()].casefold() + quoted.group()
        at = quoted.end()
    words += spaced[at:].casefold()
    start, end = 0, len(words)
    while start < end and _trimmed(words[start]):
        start += 1
    while end > start and _trimmed(words[end - 1]):
        end -= 1
    return words[start:end]


def _trimmed(c: str) -> bool:
    """Is a character one that may open or close a text without changing it: a space or punctuation, not a dash (a
    sign or an option's mark)?"""
    category = unicodedata.category(c)
    return category[0] == "Z" or (category[0] == "P" and category != "Pd")


def says_nothing(payload: Any) -> bool:
    """Nothing in it but zeros, falses, nulls and empty texts (`{"stdout": "", "exit_code": 0}`): an
    acknowledgement, not an answer."""
    if isinstance(payload, dict):
        return all(says_nothing(v) for v in payload.values())
    if isinstance(payload, list):
        return all(says_nothing(v) for v in payload)
    return payload in (None, "", 0, False)
