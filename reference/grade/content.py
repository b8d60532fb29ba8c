"""Is what a stopped run handed the user a degraded result? Judged from what it says, never its shape.

Rule, in one sentence: *a stopped run's answer counts as a degraded result when it tells the user what
the tools really returned (a fact from the run's own successful tool results, checked against the books,
so an invented fact earns nothing) and speaks to what the user asked*; prose and a dict are read alike
(a dict's values are its text). Legitimate case it must not miss: a plain-prose summary ("Order A1234 is
in transit; I could not get the delivery slot, ask the courier") with no dict and no fixed headings.
Where no tool succeeded there is no fact to give, and an answer about the user's request earns it all.
"""
from __future__ import annotations

import re
from typing import Any, Iterator

WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
DIGIT_GROUPS = re.compile(r"(?<=\d)[,\u00a0 ](?=\d{3}\b)")


def leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from leaves(item)
    elif value is not None:
        yield value


def facts_of(data: Any) -> list[str]:
    """What a successful tool result says, as texts an answer can quote: its strings and its numbers."""
    out = []
    for leaf in leaves(data):
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, (int, float)):
            if abs(leaf) >= 10:
                out.append(f"{leaf:g}" if isinstance(leaf, float) else str(leaf))
        elif isinstance(leaf, str) and len(leaf.strip()) >= 3:
            out.append(leaf.strip())
    return out


def _normal(text: str) -> str:
    return DIGIT_GROUPS.sub("", text.casefold())


def subject_words(request: str) -> set[str]:
    """What the user asked about: its names and ids (words with a capital or a digit), else its longer words."""
    words = WORD.findall(request)
    named = {w.casefold() for w in words[1:] if any(c.isdigit() for c in w) or any(c.isupper() for c in w)}
    named |= {w.casefold() for w in words if any(c.isdigit() for c in w)}
    return named or {w.casefold() for w in words if len(w) >= 5}


def answer_text(answer: str | None, degraded: Any) -> str:
    parts = [answer or ""] + [str(leaf) for leaf in leaves(degraded)]
    return " ".join(p for p in parts if p and p.strip())


def degraded_share(outcome: Any) -> float:
    """1 for a degraded result, 0.5 for one that speaks to the request but drops every fact found, 0 else."""
    text = _normal(answer_text(outcome.answer, outcome.degraded))
    if not text.strip():
        return 0.0
    said_facts = any(_normal(fact) in text for fact in outcome.facts)
    about_request = any(word in set(WORD.findall(text)) for word in subject_words(outcome.request))
    if outcome.facts:
        return 1.0 if said_facts else 0.5 if about_request else 0.0
    return 1.0 if about_request else 0.0
