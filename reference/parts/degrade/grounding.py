"""Grounding: a prose answer may state only values that a tool returned or the request gave.

A summary that invents a date or an amount is dropped for the structured answer."""
from __future__ import annotations

import json
import re
from typing import Sequence

from ...core.messages import Message, ToolMessage
from ...harness.episode import Episode
from .result import Degraded


VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,:/_-]*[A-Za-z0-9]|\d")


SMALL = re.compile(r"\d{1,2}")  # counts ("3 searches", "after 8 steps") are the run's own, not claims


def _plain(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", text).casefold()  # 1,200,000 -> 1200000


def values_in(text: str) -> list[str]:
    """Number-like and id-like tokens: 2026-12-02, A1234, v2.31.0, 1,200,000, 0.12, 502."""
    return [t for t in VALUE.findall(text) if any(c.isdigit() for c in t)]


def ungrounded(text: str, sources: Sequence[str]) -> list[str]:
    """Values in `text` that appear in none of the sources (one- and two-digit counts aside).

    Conservative: a value written differently ("1.2 million" for 1200000) counts as ungrounded, so a
    rephrased figure costs the prose answer, never the facts. Lenient on substrings ("120" is found
    inside "1200000"). Words are not checked: a "delivered" invented from nothing passes."""
    corpus = _plain(" ".join(sources))
    return [v for v in dict.fromkeys(values_in(text)) if not SMALL.fullmatch(v) and _plain(v) not in corpus]


def grounding_sources(episode: Episode, messages: Sequence[Message], degraded: Degraded) -> list[str]:
    """What a value in the answer may come from: the request, the stop detail, the checklist, the facts,
    and every tool result the model was shown (quoting an error's date is not inventing it)."""
    out = [episode.scenario.user, degraded.detail] + [i.item for i in episode.scenario.checklist]
    out += [json.dumps([o.arguments, o.data], ensure_ascii=False, default=str) for o in degraded.obtained]
    out += [m.content for m in messages if isinstance(m, ToolMessage)]
    return out
