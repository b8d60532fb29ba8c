"""What a write's own runs made, as its answers and reads show it: news that the write itself made is not news
for that write (repeats.py).

A read that shows what a write sent or answered (the id it created, the rows it inserted) reports that write's
effect, not the world's: the write sent again identically after it is a duplicate. A read that shows what the
write never named (the next rows a "More" click loaded, other issues in a list the first create is missing
from) is news about the world, and a write acting on it may run again.

A write's answer that is new only by the UUIDs it minted for itself (RFC 9562: a message id, a record id) shows
nothing of the world it acts on: the same send answered with a fresh message id is the same send again (a "Load
more" answered with the next rows' numbers shows the world moving).

An answer to an identical call of unknown effect that repeats its last answer with only numbers moved, each by
an amount the call itself sends (a balance raised by the 2 GB asked for), is the same acknowledgement: the call
adds what it adds each time, and the moved total is its own doing, not news.
"""
from __future__ import annotations

import re
from typing import Any

from .results import argument_leaves
from .state import GuardedCall, Memory, identifiers

# A mark shorter than this, in letters and digits, tells nothing apart (a quantity of 3, a flag "ok").
_DISTINCT = 3
_WORD = re.compile(r"[\w./:@-]+")
_UUID = re.compile(r"(urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")  # RFC 9562, folded


def marks(value: Any) -> set[str]:
    """The distinctive values in an answer or a call's arguments, at any depth and inside text: identifiers
    (a word with a digit, or joined by a dot, a dash, a slash) long enough to tell one thing from another."""
    found: set[str] = set()
    for _, leaf in argument_leaves(value):
        if isinstance(leaf, bool) or not isinstance(leaf, (str, int, float)):
            continue
        found |= identifiers(leaf if isinstance(leaf, str) else str(leaf))
    return {w for w in found if sum(c.isalnum() for c in w) >= _DISTINCT}


def made_by(m: Memory, a: GuardedCall) -> set[str]:
    """What the write `a` repeats has made or named so far: its arguments and the answers of its runs, less
    what results had shown before it first ran (a click's target, which the page showed first, is the page's)."""
    runs = [x for x in m.by_action.get(a.action, []) if x.ran and not x.failed]
    first = m.by_action[a.action][0].index if a.action in m.by_action else a.index
    earlier = set().union(*(marks(x.content) for x in m.attempts[:first]))
    return marks(a.arguments).union(*(marks(x.content) for x in runs)) - earlier


def _shows_own(x: GuardedCall, own: set[str]) -> bool:
    """Does the read `x` show a value the write made or named (its own arguments aside: the repository or the
    collection both name)?"""
    return bool((marks(x.content) - marks(x.arguments)) & own)


def learned_elsewhere(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Did a read between `last` and `a` show something new and none of what the write `a` made?"""
    own = made_by(m, a)
    return any(x.taught and not _shows_own(x, own) for x in m.attempts[last.index + 1:a.index])


def only_own_news(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Was every answer that was news between `last` and the write `a` a read of the write's own effect: it
    shows what the write made, or it moved, from its last answer, only by amounts the write sends?"""
    own, sent = made_by(m, a), amounts(a.arguments)
    for x in m.attempts[last.index + 1:a.index]:
        if not x.brought:
            continue
        runs = [y for y in m.by_action.get(x.action, []) if y.ran and not y.failed and y.index < x.index]
        if x.writes or x.failed or not (_shows_own(x, own) or runs and moved_by(runs[-1].content, x.content, sent)):
            return False
    return True


def minted_only(m: Memory, last: GuardedCall) -> bool:
    """Is all that the write's last answer says beyond its run before a UUID it minted (RFC 9562: a new message
    id), nothing the world it acts on showed (the next rows a "Load more" brought)?"""
    runs = [x for x in m.by_action.get(last.action, []) if x.ran and not x.failed and x.index < last.index]
    if not runs:
        return False
    new = _words(last.content) - _words(runs[-1].content)
    return bool(new) and all(_UUID.fullmatch(w) for w in new)


def _words(value: Any) -> set[str]:
    return {w.strip("./:@-").casefold() for _, leaf in argument_leaves(value) if isinstance(leaf, (str, int, float))
            for w in _WORD.findall(str(leaf))}


def amounts(arguments: Any) -> set[float]:
    """The numbers a call sends, zero aside."""
    return {float(v) for _, v in argument_leaves(arguments)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v}


def same_acknowledgement(before: GuardedCall, now: GuardedCall) -> bool:
    """Do two answers to one call say the same but for numbers, each of which moved by an amount the call sends?"""
    return moved_by(before.content, now.content, amounts(now.arguments))


def moved_by(was: Any, is_: Any, sent: set[float]) -> bool:
    """Are two answers alike but for numbers, at least one, each of which moved by one of the amounts `sent`?"""
    moved: list[bool] = []

    def alike(was: Any, is_: Any) -> bool:
        if isinstance(was, dict) and isinstance(is_, dict):
            return was.keys() == is_.keys() and all(alike(was[k], is_[k]) for k in was)
        if isinstance(was, list) and isinstance(is_, list):
            return len(was) == len(is_) and all(alike(x, y) for x, y in zip(was, is_))
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (was, is_))
        if numbers and was != is_:
            moved.append(True)
            return any(abs(is_ - was - s) < 1e-9 for s in sent)
        return was == is_
    return bool(sent) and alike(was, is_) and bool(moved)
