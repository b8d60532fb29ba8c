"""Which calls ask one question, for the rule that compares answers (answers.py).

Two calls of one tool ask about different things when a value in which they differ was given to the agent:
the words by which one argument differs from the other's, on both sides, are all words that the user (or the
system prompt) wrote or that an earlier answer showed. Ten addresses from a manifest the user pasted, eight
tenants the user listed and the keys built from them, four files a search found: each is its own question,
however alike the answers. What the agent spelled by itself (a respelled path, a reworded search, a cache-buster,
a checklist sent along) is wording, and one question asked in other words is still one question. One template
over given names is not wording either: two texts word for word the same but names, each on both sides a name the
agent was given, ask about two things (a count per table of a schema an earlier answer listed, each query with its
table's own column), while a search that changes its words asks one question (legitimate: twelve tables counted,
five counts of zero). **Texts equal but for case, spacing and the punctuation around them are one text, however each
was given**: the user's question resent in capitals asks it again (legitimate: a C++ and a C tutorial, both asked).

A wait that grows is not a respelling either: calls that differ only by numbers, each at least the one before
and one of them larger (30, 60, 120 seconds), whose answer is a bare state (a short phrase with no value in it:
"not yet", "InProgress", or one sentence giving a transient failure: "HTTP 503" while a service restarts), give the
world more time each time (`sleep 2 && curl ...` after `curl ...` is the first of them; a cache-buster glued to a
word, `?nocache=1`, is a respelling). A window widened over a log that is all there is gets the whole log back each
time, which is content, not a state, and stays one question.

A page at the position the answer before it gave is a new question, however alike the answers read: OFFSET moved
on by exactly the rows the page before returned (legitimate: five windows of 100 rows, each answered "100 rows"),
while the same step after a short page of 37 rows asks past the end (`next_page`).

A walk over a calendar is a new question at each day, as a page at the position the last answer gave is: calls that
differ only in dates (RFC 3339 dates or date-times, as the kit writes a date a schema's `format: date` reads), each
moved on by the same step from the call before it, ask about another day each time, whatever the language the user
named the week in (legitimate: seven days of the week the user asked about, each answering no bookings). Where the
user wrote days (days.py: a numeric form in both orders, 5/20 or 20/05, or a day of a month as CLDR writes one in any
language, "el 20 de mayo", "5月20日"), those days bound the walk instead: a date between the first and the last of
them is a day the user gave (May 20 to May 26, or "may 20 to 26", written as its two ends), and a day past them is not (the days after the one day the user asked about,
tried one by one, are guessing: `Given.days`, `Given.walk`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Optional

from ...core.canonical import clean_text
from .days import day_of, days_written, in_the_window
from .responses import transient
from .arguments import argument_leaves
from .state import GuardedCall, Memory
from .wording import respelled
from .words import words

_WORD = re.compile(r"\w+")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WHOLE = r"(?<![\w.-])%s(?![\w-]|\.\w)"  # a value as written, not a piece of a longer name (db-01 of db-01.prod)
SENTENCE = 12  # words: a status and a note of how the command ended, not a page of content


def _words(value: Any) -> set[str]:
    return set(_WORD.findall(clean_text(str(value)).casefold())) if value is not None else set()


def _names(words: set[str]) -> bool:
    """Can these words name a thing: not numbers only (a page, an offset, a limit name nothing; every text has some)?"""
    return any(not w.isdigit() for w in words)


def _by_key(arguments: Any) -> dict[str, list[Any]]:
    """The leaves of a call's arguments, grouped by the name of the key they sit under."""
    out: dict[str, list[Any]] = {}
    for key, value in argument_leaves(arguments):
        out.setdefault(key, []).append(value)
    return out


def differences(x: GuardedCall, a: GuardedCall) -> list[tuple[str, str]]:
    """The arguments in which two calls differ, as text, key by key (a key only one of them has counts too)."""
    was, now = _by_key(x.arguments), _by_key(a.arguments)
    pairs = []
    for key in dict.fromkeys([*was, *now]):
        u, v = " ".join(map(str, was.get(key, []))), " ".join(map(str, now.get(key, [])))
        if u != v:
            pairs.append((u, v))
    return pairs


@dataclass
class Given:
    """What the agent was given: the text the user and the system prompt wrote and the earlier answers showed
    (their echoes of the calls' own arguments aside), folded, and its words; the days the user wrote, as (month,
    day); and, where the user wrote none, the dates of the calendar walk the call goes on with."""

    text: str
    words: set[str]
    days: tuple[tuple[int, int], ...] = ()
    walk: frozenset[str] = frozenset()


def given_before(m: Memory, a: GuardedCall) -> Given:
    """What the agent was given before `a` ran."""
    texts = [m.read.folded]
    for x in m.attempts[:a.index]:
        if x.ran and x.content is not None:
            texts += [clean_text(str(v)).casefold() for _, v in argument_leaves(x.content)]
    text = "\n".join(texts)
    # the user's days bound only a call that sends a date (and CLDR's data is read only then)
    days = days_written(m.read.users) if any(day_of(v) for _, v in argument_leaves(a.arguments)) else ()
    return Given(text, set(_WORD.findall(text)), days, frozenset() if days else _walk(m, a))


def told_apart(x: GuardedCall, a: GuardedCall, given: Given) -> bool:
    """Do `x` and `a` ask about different things: in some argument, what only `x` says and what only `a` says were
    both given to the agent? Free wording (two words or more, a search) counts as given only whole, word for word (a
    line of the user's manifest), since any rewording reuses the user's words; a one-word value (a key, a host) whole,
    not within a longer name (db-01, db-02, both listed), or by the words in which the two differ (banner:acme,
    banner:globex, acme and globex listed), when more than numbers; two dates, when both lie in a window the user
    bounded or, no day written, on one walk over the calendar. Two cursors, each sent back as the page before gave
    it, tell nothing apart: they are positions in one list, as page numbers are."""
    for u, v in differences(x, a):
        if u in x.followed and v in a.followed:
            continue  # two cursors, each the one the page before gave: positions in one list, as page numbers are
        if len(words(u)) > 1 or len(words(v)) > 1:
            if respelled(u, v):
                continue  # one text in another case or spacing, its question mark dropped: nothing given differs
            if all(clean_text(t).casefold() in given.text for t in (u, v)) or _slot_filled(u, v, given):
                return True
            continue
        if in_the_window(u, given.days) and in_the_window(v, given.days) or {u, v} <= given.walk:
            return True  # two days of a window the user bounded, or of a walk over the calendar
        whole = {clean_text(t).casefold() for t in (u, v)}  # one value in another case is no other value
        if len(whole) == 2 and all(_names(_words(t)) and re.search(_WHOLE % re.escape(t), given.text) for t in whole):
            return True  # each value given whole, as the user or an answer wrote it: not built from its pieces
        only_u, only_v = _words(u) - _words(v), _words(v) - _words(u)
        if _names(only_u) and _names(only_v) and only_u <= given.words and only_v <= given.words:
            return True
    return False


def _slot_filled(u: str, v: str, given: Given) -> bool:
    """Are two texts one template with names put in its places: word for word the same but runs of words, each on
    both sides a name the agent was given as written (`... FROM raw.accounts ...`, `... FROM raw.ad_clicks ...`, an
    earlier answer having listed both tables; a table and its column, both from a schema read before;
    `-chdir=envs/dev-eu` and `-chdir=envs/prod-us`, a listing having shown both directories)? A reworded search
    changes its words, not names."""
    was, now = _WORD.findall(clean_text(u).casefold()), _WORD.findall(clean_text(v).casefold())
    runs = [r[1:] for r in SequenceMatcher(None, was, now, False).get_opcodes() if r[0] != "equal"]
    if not runs:
        return False
    spans = [(was[i:j], now[k:n]) for i, j, k, n in [(runs[0][0], runs[-1][1], runs[0][2], runs[-1][3]), *runs]]
    named = [all(x and _names(set(x)) and _given_whole(x, given) for x in span) for span in spans]
    return named[0] or all(named[1:])  # the texts between the first and the last change, or each run changed


def _given_whole(span: list[str], given: Given) -> bool:
    """Were these words given to the agent in this order, as one name (`prod-eu` in a listing's `envs/prod-eu/`)?"""
    if not set(span) <= given.words:
        return False
    return re.search(r"\b" + r"\W{1,2}".join(map(re.escape, span)) + r"\b", given.text) is not None


def listed_by(x: GuardedCall, a: GuardedCall) -> bool:
    """Does `a` ask about a thing that the answer of `x` named: a word `x` did not send, not a number, that its
    answer showed (a table a listing named, then counted)? Then `a` asks what `x` made askable, not `x`'s
    question again."""
    if not x.ran or x.content is None:
        return False
    shown = set().union(*(_words(v) for _, v in argument_leaves(x.content)))
    return any(w in shown for w in _words(a.arguments) - _words(x.arguments) if not w.isdigit())


def _date_step(x: GuardedCall, a: GuardedCall) -> Optional[int]:
    """The days by which `a` moved on from `x`, when the two differ only in dates, each moved by that many days."""
    steps = set()
    for u, v in differences(x, a):
        was, now = day_of(u), day_of(v)
        if was is None or now is None or u[10:] != v[10:]:
            return None  # another argument changed, or the time of day did
        steps.add((now - was).days)
    return steps.pop() if len(steps) == 1 and 0 not in steps else None


def _walk(m: Memory, a: GuardedCall) -> frozenset[str]:
    """The dates of the walk over the calendar that `a` goes on with: the latest calls of its tool that answered,
    each moved on from the one before by the same number of days as `a` moved on from the last of them."""
    dates: set[str] = set()
    step, later = None, a
    for x in reversed(m.attempts[:a.index]):
        if x.call.name != a.call.name or not x.ran or x.failed:
            continue
        moved = _date_step(x, later)
        if moved is None or step not in (None, moved):
            break
        step = moved
        dates |= {t for pair in differences(x, later) for t in pair}
        later = x
    return frozenset(dates)


def bare_state(a: GuardedCall) -> bool:
    """Is the answer a bare state: one short phrase (three words at most) with no number or identifier in it, or one
    sentence giving a failure the standards call transient (an HTTP 503: RFC 9110's codes name the server's state)?"""
    content = a.content
    if isinstance(content, (list, dict)) or content is None or isinstance(content, bool):
        return False
    text = clean_text(str(content)).strip()
    if 0 < len(words(text)) <= SENTENCE and transient(text):
        return True
    return 0 < len(words(text)) <= 3 and not any(c.isdigit() for c in text)


def waits_longer(x: GuardedCall, a: GuardedCall) -> bool:
    """Do the two calls differ only by numbers, each of `a`'s at least `x`'s and one of them larger (a back-off)?
    A wait put before or after a call that had none (`curl ...`, then `sleep 2 && curl ...`: whole words added,
    one of them a number) waits longer than no wait; a cache-buster glued to a word (`?nocache=1`) is a respelling."""
    pairs = differences(x, a)
    if not pairs:
        return False
    grew = False
    for u, v in pairs:
        if _wait_added(u, v):
            grew = True
            continue
        if NUMBER.sub("#", u) != NUMBER.sub("#", v):
            return False  # other words changed too: not only a wait
        for p, q in zip(NUMBER.findall(u), NUMBER.findall(v)):
            if float(q) < float(p):
                return False
            grew = grew or float(q) > float(p)
    return grew


def _wait_added(u: str, v: str) -> bool:
    """Is `v` the words of `u` unchanged with whole words added before or after them, a number among them?"""
    was, now = u.split(), v.split()
    if not was or len(now) <= len(was):
        return False
    n = len(now) - len(was)
    added = now[:n] if now[n:] == was else now[len(was):] if now[:len(was)] == was else None
    return added is not None and any(NUMBER.fullmatch(w) and float(w) > 0 for w in added)


def backing_off(chain: list[GuardedCall], a: GuardedCall) -> bool:
    """Is `a`, with the calls that got its answer before it (`chain`, oldest first), a poll backing off: each
    waits longer than the one before, and the answer is a bare state?"""
    calls = [*chain, a]
    return bare_state(a) and len(calls) > 1 and all(waits_longer(x, y) for x, y in zip(calls, calls[1:]))


def next_page(x: GuardedCall, a: GuardedCall) -> bool:
    """Does `a` ask for what comes after `x`'s answer: the two differ only by one number, moved on by exactly as
    many things as `x`'s answer returned (a page of 100 rows, then OFFSET 100 more), or by one page after a full
    one (page 2 after page 1 returned as many things as the call asked for: its `per_page` of 25)? The answer gave
    the next position, as a cursor does; after a short page (37 rows) the same step asks past the end."""
    pairs = differences(x, a)
    if len(pairs) != 1 or not x.ran or x.failed:
        return False
    (u, v), = pairs
    was, now = NUMBER.findall(u), NUMBER.findall(v)
    if NUMBER.sub("#", u) != NUMBER.sub("#", v) or len(was) != len(now):
        return False
    moved = [float(q) - float(p) for p, q in zip(was, now) if p != q]
    if len(moved) != 1 or moved[0] <= 0:
        return False
    counts = _counts(x.content)
    return moved[0] in counts or (moved[0] == 1 and _full_page(x, counts))


def _full_page(x: GuardedCall, counts: set[float]) -> bool:
    """Did `x` get as many things as it asked for: a number it sent, more than one, is a count its answer gives?"""
    sent = {float(n) for _, v in argument_leaves(x.arguments) if isinstance(v, (int, float, str))
            and not isinstance(v, bool) for n in NUMBER.findall(str(v))}
    return any(n > 1 and n in counts for n in sent)


def _counts(content: Any) -> set[float]:
    """How many things an answer returned, as it says: the length of a list it holds, or a number its text gives
    ("100 rows: ...")."""
    if isinstance(content, list):
        return {float(len(content))} | set().union(*(_counts(v) for v in content))
    if isinstance(content, dict):
        return set().union(*(_counts(v) for v in content.values()))
    if isinstance(content, str):
        return {float(n) for n in NUMBER.findall(content)}
    return set()


def paging(chain: list[GuardedCall], a: GuardedCall) -> bool:
    """Is `a`, with the calls that got its answer before it (`chain`, oldest first), one page after another, each
    asking for what the one before returned the position of (`next_page`)?"""
    calls = [*chain, a]
    return len(calls) > 1 and all(next_page(x, y) for x, y in zip(calls, calls[1:]))


def same_question(m: Memory, calls: list[GuardedCall], a: GuardedCall) -> list[GuardedCall]:
    """Of `calls` (earlier calls that got `a`'s answer), those that asked `a`'s question: not told apart from it."""
    given = given_before(m, a)
    return [x for x in calls if x is a or not told_apart(x, a, given)]
