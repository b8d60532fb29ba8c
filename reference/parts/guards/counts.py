"""How many runs the user asked for (own.py, resent.py, amended.py, repeats.py `counted`: as many identical runs as the
user asked for are no duplicate).

**A count is a number the user wrote right before the plural of what it counts, that the run's calls do not send**:
"run it 5 times", "create it three times", "créalo tres veces", and, in a script that writes no spaces or plurals, a
number before what it counts ("创建三次"). It must not fire on a measure ("check back in five minutes", "2 GB": a
unit CLDR names), a time of day ("9時に", "um 9 Uhr": the word CLDR's hour pattern writes beside it), a day of a
date ("5 December", "May 14"), a number the calls send (an issue number, an address, a size: what the acts act on,
not how many of them), a word of two letters that spells a number in another language
("to" is Danish for two), nor a number before no plural ("trigger it once manually": "once" is Spanish for eleven).

**The multiplication sign right after a number's digits makes it a count of runs** (Unicode's ×, or the x that stands
for it in ASCII: "create it 3x", "4×"). It must not fire on a size or a product, where a number follows the sign
("1920x1080").

**A spelled number is read only in the language the rest of the message is written in, as CLDR's own words tell**
(`_written_in`: the words CLDR writes around numbers and dates in one language alone, "and", "hace", "nächste"):
"Once tests pass, create the job and give me its name" is English, where "once" is no number. It must not fire on a
message whose words tell no language ("Créalo tres veces": every language that spells the number reads it), nor on
a word CLDR writes in several ("den" is Czech and Swedish: "Starte den Export dreimal, ich brauche drei Kopien"
still counts three).

**A word may stand between a number and the plural it counts only where each run made a new thing** (`made`: an id
or a name its answer minted): "create 3 new tickets", three creates each answering a new id. It must not fire on
"fix the 3 failing tests": three identical edits make nothing, and the 3 counts the tests, not the acts; nor past
the noun the number stands with ("erstelle ihn 3 Mal und nenne mir dann die Namen": the names are not counted).

**A count has no fixed top**: it is only compared with the runs made, so a larger one lets them all through, as the
user said ("run the smoke test 200 times"). It must not fire on an id or a port ("pipeline 1187342"): no plural
follows it, and a number the calls send is set aside whatever its length.

Nothing here is a word list of the kit's own. Numbers are Unicode's (a run of decimal digits in any script, a
character with a numeric value such as 三) or spelled as num2words spells cardinals in the languages it knows;
units, months, the endings plurals take and the words that tell a language are CLDR's, as Babel holds them. All are
kept in cldr_counts.json beside this file (its `source` says which versions wrote it; counts_table.py writes it), read
once a process.

Known limits. Multiplicative numerals ("twice", "dreimal") are no cardinal: neither num2words nor the CLDR data Babel
carries spells them, so they count one; so does "3 Mal" (a noun German leaves singular after a number). A plural
that keeps fewer than _STEM letters ("PRs") counts nothing. A short request whose other words CLDR does not write
("Once tests pass, create the job.") tells no language, and "once" reads eleven there.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from .arguments import argument_leaves
from .state import Memory

MOST = 100  # the largest spelled number read: past it most languages spell a number in words this reader does not join
_BETWEEN = 1  # words read between a number and its plural: an adjective ("3 new tickets"); more run past its noun
_UNIT_WORDS = 6  # words after a number read for a unit's name ("fois l’accélération de pesanteur terrestre")
SHORT = 2  # letters: a word no longer than this tells no language apart ("to" is Danish for two, "in" German too)
_STEM = 3  # letters a plural keeps before its ending: "its" is no plural of "it", "runs" is one of "run"


def asked(m: Memory, made: bool = False) -> int:
    """How many runs the user's latest message asked for, the numbers the run's calls send aside: they
    name or measure what the acts act on (an issue number, an address, a size), not how many acts there are.
    `made`: the runs counted each made a new thing, so a number may stand before words and then their plural."""
    said = m.read.user_texts[-1] if m.read.user_texts else ""
    return asked_for(said or "", frozenset(n for x in m.attempts for n in _whole_numbers(x.arguments)), made)


def _whole_numbers(arguments: Any) -> set[int]:
    """The whole numbers a call's arguments send, alone or in text (a `replicas: 6`, `LIMIT 10`, `88 Pine St`)."""
    found: set[int] = set()
    for _, leaf in argument_leaves(arguments):
        if isinstance(leaf, (int, float)) and not isinstance(leaf, bool) and float(leaf).is_integer():
            found.add(int(leaf))
        elif isinstance(leaf, str):
            found |= {int(n) for n in _STANDALONE.findall(leaf)}
    return found


# A number standing alone in text, not a part of a date, a version, a path or a name ("2026-12-02", "v2", "cr_101").
_STANDALONE = re.compile(r"(?<![\w./:-])\d+(?![\w./:-])")


@lru_cache(maxsize=256)
def asked_for(request: str, sent: frozenset[int] = frozenset(), made: bool = False) -> int:
    """How many runs the user asked for: the largest count `request` states (one, when it states none); `sent`: the
    numbers the run's calls send, which name or measure what the acts act on; `made`: the runs each made a new thing,
    so words may stand between a number and the plural it counts ("create 3 new tickets")."""
    words = request.split()
    found = [1]
    for i, word in enumerate(words):
        core, closed = _core(word)
        times = _times(core)
        if times is not None:
            found.append(1 if times in sent else times)  # "3x", "3×": the sign says what the number counts, runs
            continue
        read = _number(core, words[:i] + words[i + 1:])
        if read is None or closed or i + 1 == len(words) or _opens(words[i + 1]):
            continue  # punctuation after a number ends its clause: it counts nothing after it
        n, languages = read
        before = _core(words[i - 1])[0].casefold() if i else ""
        clause = [_core(w) for w in words[i + 1:i + 1 + _UNIT_WORDS]]
        ends = next((k + 1 for k, (_, shut) in enumerate(clause) if shut), len(clause))
        after = [w.casefold() for w, _ in clause[:ends]]  # punctuation ends what the number counts
        reach = range(min(len(after), 1 + _BETWEEN if made else 1))  # where each run made one of what it counts
        if n >= 2 and n not in sent and any(all(w.isalpha() for w in after[:k]) and _counts(after, before, languages, k)
                                            for k in reach):
            found.append(n)
    return max([*found, *(n for n in _unspaced(request) if n not in sent)])


def _times(word: str) -> Optional[int]:
    """The number of runs a word states with the multiplication sign (Unicode's U+00D7, or the letter x that stands
    for it in ASCII) right after its digits: "create it 3x", "3×". Not a size or a product, where a number follows the
    sign ("1920x1080"), nor a name whose letters go on ("3xl")."""
    digits, sign = word[:-1], word[-1:]
    return int(digits) if sign in ("×", "x", "X") and digits.isdecimal() and int(digits) >= 2 else None


def _number(word: str, others: list[str]) -> Optional[tuple[int, tuple[str, ...]]]:
    """The number a word writes and the languages that spell it so (all of them, for digits). A spelled number is
    read only in a language the message's `others` words are written in (`_written_in`): "Once tests pass, create
    the job and give me its name" is English, where "once" is no number, though Spanish spells eleven so."""
    if word.isdecimal():
        return int(word), _languages()
    spelled = _spelled().get(word.casefold())
    written = _written_in(tuple(others)) if spelled else frozenset()
    languages = tuple(x for x in spelled or () if not written or x.split("_")[0] in written)
    return (min(spelled[x] for x in languages), languages) if spelled and languages else None


@lru_cache(maxsize=256)
def _written_in(words: tuple[str, ...]) -> frozenset[str]:
    """The languages words are written in, as far as CLDR's own words tell: those of which they use the most of the
    words CLDR writes around numbers and dates (its list patterns: "and", "und"; its relative dates: "ago", "hace",
    "nächste") in that language alone ("den" is Czech and Swedish: it tells neither apart). None, when they use
    none: a short request ("Créalo tres veces") tells no language, and every language that spells its number reads
    it."""
    # a word of letters alone: a path, a name or code ("tests/test_today.py") is written in no language of the message
    used = Counter(_own_words().get(_core(word)[0].casefold()) for word in words if _core(word)[0].isalpha())
    used.pop(None, None)
    most = max(used.values(), default=0)
    return frozenset(base for base, score in used.items() if score == most)


@lru_cache(maxsize=1)
def _own_words() -> dict[str, str]:
    """Each word CLDR writes around numbers and dates in one language only (of those num2words spells): -> it."""
    where = Counter(w for data in _table()["cldr"].values() for w in set(data.get("words", ())))
    return {w: base for base, data in _table()["cldr"].items() for w in data.get("words", ()) if where[w] == 1}


def _counts(after: list[str], before: str, languages: tuple[str, ...], at: int = 0) -> bool:
    """Does a number count the words after it: the one at `at` a plural in one of `languages`, they spelling no unit
    of measure from the first, and no month's name beside the number?"""
    data = [_cldr(language) for language in languages]
    word = after[at]
    return word.isalpha() and any(word.endswith(end) and len(word) - len(end) >= _STEM
                                  for _, _, ends in data for end in ends) \
        and not any(tuple(after[:n]) in units for units, _, _ in data for n in range(1, len(after) + 1)) \
        and not any(word in months or before in months for _, months, _ in data)


def _unspaced(text: str) -> list[int]:
    """The numbers written in a script without spaces or plurals: a run of digits, or a character with a numeric
    value, right before a letter of such a script (三 in 创建三次, 3 in 3回), unless what follows starts a unit of
    measure ("五分钟": five minutes). Digits inside a word of spaced letters are a name ("2FA", "v2", "HAT045")."""
    found = []
    for match in re.finditer(r"\d+|[^\W\d_a-zA-Z]", text):  # a numeric letter is never ASCII
        number, start, end = match.group(), match.start(), match.end()
        value = int(number) if number.isdecimal() else unicodedata.numeric(number, None)
        before, rest = text[start - 1:start], text[end:]
        if value is None or not float(value).is_integer() or value < 2 or not rest \
                or unicodedata.category(rest[0]) != "Lo" or (before.isalnum() and unicodedata.category(before) != "Lo"):
            continue
        units = (u[0] for language in _languages() for u in _cldr(language)[0] if not u[0].isascii())
        if not any(rest.startswith(unit) for unit in units):
            found.append(int(value))
    return found


def _core(word: str) -> tuple[str, bool]:
    """A word without the brackets and quotes that open it and the punctuation that closes it, and whether that
    punctuation ends its clause. A sign kept on it marks a measure or a name, not a count ("$100", "#42", "~30")."""
    core = word
    while core and unicodedata.category(core[0]) in ("Ps", "Pi"):
        core = core[1:]
    closed = bool(core) and unicodedata.category(core[-1]) in ("Pe", "Pf", "Po")
    while core and unicodedata.category(core[-1]) in ("Pe", "Pf", "Po"):
        core = core[:-1]
    return core, closed


def _opens(word: str) -> bool:
    """Does a word open with a bracket or a quote: what follows is an aside, not what a number before it counts?"""
    return bool(word) and unicodedata.category(word[0]) in ("Ps", "Pi")


CLDR_COUNTS = Path(__file__).with_name("cldr_counts.json")  # written by counts_table.py, read once a process


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    return json.loads(CLDR_COUNTS.read_text(encoding="utf-8"))


def _languages() -> tuple[str, ...]:
    return tuple(_table()["languages"])


def _spelled() -> dict[str, dict[str, int]]:
    """Each one-word cardinal from 2 to MOST, as num2words spells it, longer than SHORT: the languages -> the number."""
    return _table()["spelled"]


@lru_cache(maxsize=None)
def _cldr(language: str) -> tuple[frozenset[tuple[str, ...]], frozenset[str], frozenset[str]]:
    """CLDR's words for one language: the words after a number in each unit ("minutes", "GB") or in the hour of a
    time of day ("Uhr", "時"), the months' names
    ("december", "dic"), and the endings its units' plurals add to the singular ("s" of "minutes", "er" of
    "minutter")."""
    words = _table()["cldr"].get(language.split("_")[0], {})
    return (frozenset(tuple(u) for u in words.get("units", ())), frozenset(words.get("months", ())),
            frozenset(words.get("ends", ())))
