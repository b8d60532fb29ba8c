"""The table counts.py reads (cldr_counts.json), and its writer: each one-word cardinal num2words spells from 2 to
counts.MOST, longer than counts.SHORT, and for each of its languages CLDR's words as Babel holds them: the units of
measure and the word beside the hour of a time of day, the months, the endings plurals take, and the words written
around numbers and dates that tell the language. Both packages are in the dev extra; the kit reads the table, not
them. The numbers are read from counts.py when the table is built, so a sweep that sets one there
(benchmarks/guard_numbers.py) builds the table for it.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

from . import counts


def counts_table() -> dict[str, Any]:
    """cldr_counts.json's contents, from num2words (its languages, and each one-word cardinal from 2 to MOST it spells,
    longer than SHORT) and Babel's CLDR data (for each of those languages, its units' words, months, plural endings
    and the words that tell it). Reading them costs about 0.3 s a process; the table, a few milliseconds."""
    from importlib.metadata import version

    import babel
    from num2words import CONVERTER_CLASSES, num2words
    languages = tuple(CONVERTER_CLASSES)
    spelled: dict[str, dict[str, int]] = {}
    for language in languages:
        for n in range(2, counts.MOST + 1):
            try:
                word = num2words(n, lang=language).casefold()
            except (NotImplementedError, KeyError, ValueError, TypeError, IndexError):
                continue
            if len(word) > counts.SHORT and not any(c.isspace() for c in word):
                spelled.setdefault(word, {})[language] = n
    cldr = {}
    for base in sorted({language.split("_")[0] for language in languages}):
        units, months, ends = _read_cldr(base)
        words = _read_words(base)
        if units or months or ends or words:
            cldr[base] = {"units": sorted(map(list, units)), "months": sorted(months), "ends": sorted(ends),
                          "words": sorted(words)}
    return {"source": f"num2words {version('num2words')}; CLDR {babel.core.get_cldr_version()} "
                      f"through Babel {babel.__version__}",
            "languages": list(languages), "spelled": dict(sorted(spelled.items())), "cldr": cldr}


def write_counts_table() -> None:
    """Write counts.CLDR_COUNTS, an entry a line:
    python -c "from reference.parts.guards.counts_table import write_counts_table; write_counts_table()"."""
    table, dump = counts_table(), (lambda value: json.dumps(value, ensure_ascii=False))
    parts = [f'"source": {dump(table["source"])}', f'"languages": {dump(table["languages"])}',
             '"spelled": {\n' + ",\n".join(f"{dump(k)}: {dump(v)}" for k, v in table["spelled"].items()) + "\n}",
             '"cldr": {\n' + ",\n".join(f"{dump(k)}: {dump(v)}" for k, v in table["cldr"].items()) + "\n}"]
    counts.CLDR_COUNTS.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")


def _read_cldr(language: str) -> tuple[set[tuple[str, ...]], set[str], set[str]]:
    """Babel's CLDR words for one language, as _cldr gives them. An entry CLDR writes as an alias of another is read
    where it is written."""
    from babel.localedata import exists, load
    if not exists(language):
        return set(), set(), set()
    data = load(language)
    units: set[tuple[str, ...]] = set()
    ends: set[str] = set()
    for lengths in data["unit_patterns"].values():
        for forms in (f for d in _written(lengths) for length in d.values() for f in _written(length)):
            tails = {k: _tail(v) for k, v in forms.items() if k != "per" and isinstance(v, str) and "{0}" in v}
            units |= {tuple(t.split()) for t in tails.values() if t}
            one, other = tails.get("one", ""), tails.get("other", "")
            stem = len(os.path.commonprefix([one, other]))
            if one and one != other and stem >= counts._STEM and other[stem:].isalpha():
                ends.add(other[stem:])
    units |= {(w,) for w in _hour_words(data)}
    months = {name.casefold().strip(".") for names in _written(data["months"]["format"])
              for width in ("wide", "abbreviated") for d in _written(names.get(width)) for name in d.values()}
    return units, months, ends


def _hour_words(data: Any) -> set[str]:
    """The words CLDR writes beside the hour of a time of day alone (its skeleton "H": "H時", "HH 'Uhr'"): a number
    written with them is a clock time ("9時に", "um 9 Uhr"), not a count. The hour's own field and any other field of
    the pattern (letters outside quotes, LDML's date field symbols) are no words."""
    skeleton = next((d.get("H") for d in _written(data.get("datetime_skeletons"))), None)
    pattern = str(getattr(skeleton, "pattern", skeleton) or "")
    literal = " ".join(q or text for q, text in re.findall(r"'([^']*)'|([^A-Za-z']+)", pattern))
    return {w.casefold() for w in literal.split()}


def _read_words(language: str) -> set[str]:
    """The words, longer than SHORT, that CLDR writes around numbers and dates in one language: its list patterns
    ("{0} and {1}") and its relative dates, full width ("in {0} weeks", "{0} weeks ago", "next week")."""
    from babel.localedata import exists, load
    if not exists(language):
        return set()
    data = load(language)
    texts: list[str] = []

    def gather(value: Any) -> None:
        if isinstance(value, str):
            texts.append(re.sub(r"\{\d\}", " ", value))
        for inner in _written(value):
            for item in inner.values():
                gather(item)
    for lists in _written(data["list_patterns"]):
        gather({kind: lists.get(kind, {}) for kind in ("standard", "or")})  # "and", "or" at their full width
    for field, forms in data["date_fields"].items():
        if "-" not in field:  # the full width: "-short" and "-narrow" abbreviate ("wk.")
            gather(forms)
    return {w for text in texts for w in re.findall(r"[^\W\d_]+", text.casefold()) if len(w) > counts.SHORT}


def _written(value: Any) -> list[dict]:
    """The entries Babel's raw CLDR data writes at a place: a dict, or the dicts beside an alias (`(Alias, {...})`)."""
    return [value] if isinstance(value, dict) else [v for v in value if isinstance(v, dict)] \
        if isinstance(value, tuple) else []


def _tail(pattern: str) -> str:
    """What a unit pattern writes after its number ("{0} minutes": "minutes"), spaces of any kind as one."""
    return " ".join(pattern.replace("{0}", " ").split()).casefold()
