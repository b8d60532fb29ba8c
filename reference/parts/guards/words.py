"""What a word is, for every rule that counts the words of a text (an acknowledgement against content, free
wording against a key, a quoted passage, a bare state).

**A word is what Unicode's word segmentation (UAX #29) makes one in a script written without spaces, and a run
between white space elsewhere**: each ideograph, each hiragana and each letter of Thai, Lao, Myanmar and Khmer is a
word, as UAX #29's default rules break them (their dictionaries aside), and a katakana run is one word
("订单正在打包，尚未发货。" is ten words, "テスト" one). It must not split what a spaced script writes as one
token: "w_101", "in_progress" and "550e8400-e29b-41d4" stay one word each, as white space has them.
"""
from __future__ import annotations

import re
from functools import lru_cache

# Unicode's blocks of the scripts UAX #29 breaks at every letter by default: Thai, Lao, Myanmar, Khmer (Line_Break
# SA, left to dictionaries), Hiragana, and the ideographs (CJK Unified Ideographs and their extensions, the
# compatibility ideographs, 々 〆 〇); the marks written on their letters (category M) stay with them.
_EACH = "\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff\u3005-\u3007\u3040-\u309f\u3400-\u4dbf" \
        "\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
# Katakana (and its phonetic extensions, halfwidth forms, the prolonged sound mark): one word to a run (WB13)
_KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_UNSPACED = re.compile(f"[{_EACH}{_KATAKANA}]")
_PIECE = re.compile(f"[{_KATAKANA}]+|[{_EACH}][\u0300-\u036f\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc"
                    f"\u0ec8-\u0ecd\u102b-\u103e\u17b4-\u17d3]*|[^{_EACH}{_KATAKANA}]+")


@lru_cache(maxsize=1024)
def words(text: str) -> tuple[str, ...]:
    """The words of a text: its runs between white space, a run holding letters of a script written without
    spaces broken as UAX #29 breaks them; what is left of such a run between them counts when it holds a letter or
    a digit ("A1234号" is two words, "，" none)."""
    found: list[str] = []
    for run in text.split():
        if not _UNSPACED.search(run):
            found.append(run)
            continue
        found += [p for p in _PIECE.findall(run) if any(c.isalnum() for c in p)]
    return tuple(found)


# A numeral with a unit's letters after it, as ISO 80000-1 writes a quantity: "3ms", "512MiB", "1,5s".
_QUANTITY = re.compile(r"([-+]?\d+(?:[.,]\d+)*)([^\W\d_]+)")


def same_unit(was: str, now: str) -> bool:
    """Are two words one quantity measured again: a numeral followed by the same unit's letters, only the numeral
    changed ("3ms", then "4ms")? A measure moved; nothing was named. Not a name whose letters changed beside its
    digits (a pod's "4mdqw", then "8xk2p")."""
    a, b = _QUANTITY.fullmatch(was), _QUANTITY.fullmatch(now)
    return bool(a and b) and a.group(2) == b.group(2) and a.group(1) != b.group(1)
