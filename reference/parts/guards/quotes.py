"""What a user quotes: a passage the user wrote between quotation marks, or as code, asks for those very words.

A passage is quoted when it stands in a Markdown code span (CommonMark), between ASCII double quotes, or between a
pair of quotation marks a locale opens and closes a quotation with, as CLDR lists them: « pytest -q », „pytest -q“,
「pytest -q」 are quoted as "pytest -q" is. The single marks ‘ ’ are also the apostrophe, and an apostrophe is no
quotation's edge: inside a word (don’t, the user’s: Unicode's word boundaries, UAX #29, read it as MidNumLet) or
after one with a space after it (the students’ work). Text is read in its NFKC form (a full-width ＂ is ").
"""
from __future__ import annotations

import re
from bisect import bisect_right

from ...core.canonical import clean_text

# Every pair CLDR 47 lists as a locale's `quotationStart`/`quotationEnd` or `alternateQuotationStart`/
# `alternateQuotationEnd` (common/main/*.xml, the `delimiters` element), most used first; Arabic and Hebrew locales
# store theirs in logical order (” “, ’ ‘). ASCII's double quote first, as a Markdown text writes it.
QUOTATION_PAIRS = (('"', '"'), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"),
                   ("\u201e", "\u201c"), ("\u2019", "\u2018"), ("\u201d", "\u201c"), ("\u201e", "\u201d"),
                   ("\u201a", "\u2018"), ("\u2019", "\u2019"), ("\u2039", "\u203a"), ("\u201a", "\u2019"),
                   ("\u201d", "\u201d"), ("\u300c", "\u300d"), ("\u300e", "\u300f"), ("\u00bb", "\u00ab"),
                   ("\u201c", "\u2019"), ("\u203a", "\u2039"))
_APOSTROPHES = "\u2018\u2019"
_MARKS = re.compile("[" + re.escape("".join(sorted({m for pair in QUOTATION_PAIRS for m in pair}))) + "]")
_CODE_SPAN = re.compile(r"`+([^`]+)`+")


def _word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


def _opens(text: str, i: int) -> bool:
    """Can the mark at `i` open a quotation: not an apostrophe (no word before it, a character after it)?"""
    return text[i] not in _APOSTROPHES or (not _word(text, i - 1) and i + 1 < len(text) and not text[i + 1].isspace())


def _closes(text: str, i: int) -> bool:
    """Can the mark at `i` close a quotation: not an apostrophe (a character before it, no word after it)?"""
    return text[i] not in _APOSTROPHES or (i > 0 and not text[i - 1].isspace() and not _word(text, i + 1))


def quoted(text: str) -> list[str]:
    """The passages a text quotes, left to right, each from its opening mark to the nearest mark that closes it
    (found by bisection: a long text with marks left open is read once, not once per mark)."""
    text = clean_text(text)
    found = _CODE_SPAN.findall(text)
    bare = _CODE_SPAN.sub(lambda span: " " * len(span.group()), text)  # a quote inside code is the code's
    marks = [(m.start(), m.group()) for m in _MARKS.finditer(bare)]
    closers = {c: [i for i, mark in marks if mark == c and _closes(bare, i)] for _, c in QUOTATION_PAIRS}
    after = 0
    for i, mark in marks:
        if i < after or not _opens(bare, i):
            continue
        for o, c in QUOTATION_PAIRS:
            ends = closers[c] if o == mark else []
            k = bisect_right(ends, i + 1)  # a passage holds at least one character
            if k < len(ends):
                found.append(text[i + 1:ends[k]].strip())
                after = ends[k] + 1
                break
    return found
