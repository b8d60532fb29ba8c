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

An answer to an identical call of unknown effect that repeats its last answer but for what the call minted (a
value that names a thing, sent_back.py: one another tool's parameter takes or a later call sent back, at first sight
a member named as an id; an RFC 3339 creation time; or in text a name of letters and digits new to this answer:
a certificate number, a temporary branch, never a name the last answer held: a range starting at the tip the last
pull brought shows the world moving on) is the same acknowledgement: the call acted, and acts again when sent
again with nothing new in between; as many runs as the user asked for are no duplicate (three runs of a job the
user asked for three of, each given its own generated name, the jobs listed after each), nor is a run after a read
that showed something new and none of what the call made (a comment list without the first reply). In text, a value the answer labels as an id (`{'id':
31877152210}`, a Python repr, not JSON) is minted as a member named as an id is (a step count moved in text is news).

A call that names or shows a name the write's answers minted (`kubectl logs job/<its job>`, a listing of the jobs
with it), or asks by what the write made (sent_back.asks_back: an issue read by the number its create answered),
reads its effect: no news that lets it run again (`ls -la` after `ls` shows names no write answered: news), unless
it answers otherwise than the same read of the round before, what the rounds made aside (a test read by its PID, FAIL
after PASS: news). So does a call showing 8 words in a row the write first wrote (one showing only the review: news).

A read of unknown effect that answers with what the write made or sent (the total an INSERT's amount moved) reads
the write's effect, and another item of the parallel batch a write succeeded in answers for that batch: neither
is news that lets the write run again (a batch sent again whole after one item timed out sends the others twice;
the item that timed out is sent again, as it may be). A number a call's answer reported is not something it made:
another call that may act and answers that number (a batch UPDATE moving as many rows as the count read before it
said remain) is no read of that call's effect, so the count read again after it is no duplicate.
"""
from __future__ import annotations

import re
from typing import Any, Optional

from .responses import is_date_time
from .sent_back import asks_back, asks_back_anew, id_member, identities, sent_back, taken_back
from .arguments import argument_leaves
from .counts import asked
from .state import GuardedCall, Memory, identifiers
from .words import same_unit, words as words_of

# A mark shorter than this, in letters and digits, tells nothing apart (a quantity of 3, a flag "ok").
_DISTINCT = 3
_WORD = re.compile(r"[\w./:@-]+")
_NUMERAL = re.compile(r"[-+]?[\d.,]+")
_PART = re.compile(r"[^./:@-]+")  # a word's parts, as its own punctuation joins them
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


def made_by(m: Memory, a: GuardedCall, reported_aside: bool = False) -> set[str]:
    """What the write `a` repeats has made or named so far: its arguments and the answers of its runs, less
    what results had shown before it first ran (a click's target, which the page showed first, is the page's);
    `reported_aside`: but the bare numbers its answers reported (`_made_in`)."""
    runs = [x for x in m.by_action.get(a.action, []) if x.ran and not x.failed]
    first = m.by_action[a.action][0].index if a.action in m.by_action else a.index
    earlier = set().union(*(marks(x.content) for x in m.attempts[:first]))
    return marks(a.arguments).union(*(_made_in(m, x) if reported_aside else marks(x.content) for x in runs)) - earlier


def _made_in(m: Memory, x: GuardedCall) -> set[str]:
    """What the answer of `x` may have made: its distinctive values but the bare numbers it reports (a count of
    remaining rows is a measure of the world, not a thing the call made, even where a later call sends it back),
    unless the number names a thing: another tool's parameter takes it (an issue's `number`), or, at first sight,
    its member is named as an id."""
    ids = taken_back(m, x) | {str(v) for k, v in argument_leaves(x.content) if id_member(k)}
    return {w for w in marks(x.content) if not _NUMERAL.fullmatch(w) or w in ids}


def minted_by(m: Memory, a: GuardedCall) -> set[str]:
    """The names the runs of the write `a` answered that nothing had shown before and its arguments do not spell:
    what it created and the service or the shell named (`job.batch/invoice-email-manual-1764648611`), each name
    also without the kind or path before it (`invoice-email-manual-1764648611`)."""
    runs = [x for x in m.by_action.get(a.action, []) if x.ran and not x.failed]
    first = m.by_action[a.action][0].index if a.action in m.by_action else a.index
    earlier = set().union(*(_names(x.content) for x in m.attempts[:first]))
    return set().union(*(_names(x.content) for x in runs)) - earlier - _names(a.arguments)


def _names(value: Any) -> set[str]:
    """The names of letters and digits together in a value, whole and by the parts a slash joins (`job/x`: x)."""
    return {p for w in marks(value) for p in (w, *w.split("/")) if a_name(p)}


# Words in a row that make a passage one text wrote, longer than the phrases texts share ("was issued today").
_PASSAGE = 8


def passages(value: Any) -> set[tuple[str, ...]]:
    """Every run of `_PASSAGE` words in a row in the texts of a value, case aside."""
    found: set[tuple[str, ...]] = set()
    for _, leaf in argument_leaves(value):
        if isinstance(leaf, str):
            words = [p.casefold() for w in _WORD.findall(leaf) for p in words_of(w)]
            found |= {tuple(words[i:i + _PASSAGE]) for i in range(len(words) - _PASSAGE + 1)}
    return found


def written_by(m: Memory, a: GuardedCall) -> set[tuple[str, ...]]:
    """The passages the write `a` sends that no call had sent or shown before it first ran (a comment's own words,
    not a line of the diff it quotes nor the review it repeats)."""
    first = m.by_action[a.action][0].index if a.action in m.by_action else a.index
    return passages(a.arguments) - set().union(*(passages(x.content) | passages(x.arguments)
                                                 for x in m.attempts[:first]))


def _names_minted(x: GuardedCall, minted: set[str]) -> bool:
    """Does the call `x` name or show what the write minted (`kubectl logs job/<the job it created>`, a listing
    of the jobs with it)? Then it reads that write's effect, whatever else it shows of it (its duration, its log)."""
    return bool((_names(x.arguments) | _names(x.content)) & minted)


def shows_own(x: GuardedCall, own: set[str]) -> bool:
    """Does the read `x` show a value the write made or named (its own arguments aside: the repository or the
    collection both name)?"""
    return bool((marks(x.content) - marks(x.arguments)) & own)


def _shows_only_own(x: GuardedCall, own: set[str]) -> bool:
    """Does the call `x` of unknown effect answer with nothing but what the write made or named, beside its own
    arguments (a SUM over the rows an INSERT added)? Then it read the write's effect; it did not act."""
    shown = marks(x.content) - marks(x.arguments)
    return bool(shown) and shown <= own


def learned_elsewhere(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Did a read between `last` and `a` show something new and none of what the write `a` made?"""
    own = made_by(m, a)
    return any(x.taught and (asks_back_anew(m, a, x) or not (shows_own(x, own) or asks_back(m, a, x)))
               for x in m.attempts[last.index + 1:a.index])


def only_own_news(m: Memory, last: GuardedCall, a: GuardedCall, reworded: bool = False) -> bool:
    """Was every answer that was news between `last` and the write `a` a read of the write's own effect: it
    shows what the write made, or it moved, from its last answer, only by amounts the write sends? `reworded`:
    `a` sends `last` again in other words, so what `last` made is the write's own too (the row id its INSERT
    answered, shown by the SELECT after it)."""
    own, sent, minted, wrote = made_by(m, a), amounts(a.arguments), minted_by(m, a), written_by(m, a)
    named = made_by(m, a, reported_aside=True)  # what another call that may act can only echo of `a`
    if reworded:
        own, minted, named = own | made_by(m, last), minted | minted_by(m, last), named | made_by(m, last, True)
    for x in m.attempts[last.index + 1:a.index]:
        if not x.brought or (x.step == last.step and x.call.name == last.call.name and not last.failed):
            continue  # another item of the batch the write succeeded in answers for that batch, not for the world
        if asks_back_anew(m, a, x):
            return False  # the write's result read otherwise than the round before: the world moved (a flaky test)
        if (not x.writes or m.info(x.call.name).unknown) and x.ran and not x.failed \
                and (_names_minted(x, minted) or passages(x.content) & wrote or asks_back(m, a, x)):
            continue  # it names or shows what the write created, or shows what it wrote: it reads its effect
        runs = [y for y in m.by_action.get(x.action, []) if y.ran and not y.failed and y.index < x.index]
        if (x.writes and not (m.info(x.call.name).unknown and _shows_only_own(x, named))) or x.failed \
                or not (shows_own(x, own) or runs and moved_by(runs[-1].content, x.content, sent)):
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


def same_acknowledgement(before: GuardedCall, now: GuardedCall, m: Optional[Memory] = None) -> bool:
    """Do two answers to one call say the same but for numbers, each of which moved by an amount the call sends, or
    but for what the second minted, more runs of it than the user asked for and no read between showing something
    new and none of what it made (`m`: the run; a list without the first reply says it did not land)?"""
    if moved_by(before.content, now.content, amounts(now.arguments)):
        return True
    named = sent_back(m, before, now) | taken_back(m, before) if m is not None else frozenset()
    return minted_apart(before.content, now.content, named) \
        and (m is None or (beyond_asked(m, now) and not learned_elsewhere(m, before, now)))


def minted_apart(was: Any, is_: Any, named: frozenset[str] = frozenset()) -> bool:
    """Are two answers alike but for values the second one minted, at least one: a member named as an id, an
    RFC 3339 date-time, or in text a word of letters and digits together that the first answer did not hold
    (`job.batch/loadtest-9mdqw`, a UUID) or a value the text labels as an id (`{'id': 31877152210}`: a Python repr,
    not JSON), or a value of the first answer that names the thing (`named`, sent_back.py: a message's `ts` read
    back by it, an issue's `number` another tool's `issue_number` takes)? A count, a measure or a clock in text
    moved (`time=3ms`, then `time=4ms`: words.same_unit) is news, not minted."""
    minted: list[bool] = []

    def alike(was: Any, is_: Any, key: str) -> bool:
        if isinstance(was, dict) and isinstance(is_, dict):
            return was.keys() == is_.keys() and all(alike(was[k], is_[k], str(k)) for k in was)
        if isinstance(was, list) and isinstance(is_, list):
            return len(was) == len(is_) and all(alike(x, y, key) for x, y in zip(was, is_))
        if was == is_:
            return True
        if ((id_member(key) or str(was) in named) and not isinstance(is_, (bool, dict, list))) \
                or (is_date_time(was) and is_date_time(is_)):
            minted.append(True)
            return True
        if not (isinstance(was, str) and isinstance(is_, str)) or _WORD.sub(" ", was) != _WORD.sub(" ", is_):
            return False
        old, new = _WORD.findall(was), _WORD.findall(is_)
        if len(old) != len(new):
            return False
        held = set(old)
        for i, (w, v) in enumerate(zip(old, new)):
            if w != v:
                if v in held or _moved_on(w, v, held) or same_unit(w, v) \
                        or not (a_name(v) or _labelled_id(old, i) or w.strip("./:@-") in named):
                    return False
                minted.append(True)
        return True
    return alike(was, is_, "") and bool(minted)


def made_a_thing(m: Memory, x: GuardedCall) -> bool:
    """Did the write `x` make a thing: does its answer hold a value that names one (sent_back.identities: a value a
    later call sent back, one another tool's parameter takes, at first sight a member named as an id) that nothing
    before it showed and it did not send (an update names the id it changes)?"""
    ids = set().union(*(marks(v) for v in identities(m, x)))
    return bool(ids - marks(x.arguments) - set().union(*(marks(y.content) for y in m.attempts[:x.index])))


def _moved_on(was: str, now: str, held: set[str]) -> bool:
    """Does a word put in a changed part a name the earlier answer held (`8a1d2c4..f02b7e9`, then `f02b7e9..61ac0d3`:
    the tip the last pull brought is where this one starts)? It moved on from what was seen: nothing minted."""
    old, new, seen = _PART.findall(was), _PART.findall(now), {p for w in held for p in _PART.findall(w)}
    return any(a_name(p) and p in seen for i, p in enumerate(new) if i >= len(old) or p != old[i])


def _labelled_id(words: list[str], i: int) -> bool:
    """Does the text label its `i`th word as an id: is the word before it a member's name that says it holds an id
    (`{'id': 31877140021}`, `ticket_id=48213`), as a JSON member so named would?"""
    before = [w.strip("./:@-") for w in words[:i]]
    label = next((w for w in reversed(before) if w), "")
    return id_member(label)


def a_name(word: str) -> bool:
    """Is a word a name something was given: letters and digits together, long enough to tell things apart?"""
    return any(c.isalpha() for c in word) and any(c.isdigit() for c in word) \
        and sum(c.isalnum() for c in word) >= _DISTINCT


def beyond_asked(m: Memory, a: GuardedCall, made: bool = False) -> bool:
    """Has the call `a` run more often, in this user turn, than the user's latest message asked for (`made`: each
    run made a new thing, counts.asked)? The tool's other calls in the turn take their share of the count (three
    emails to three customers are the three asked), not those reading what it created (the jobs listed after each
    create of the three asked)."""
    # `a` itself counts, whether it ran (in the attempts) or is being judged before it runs
    turn = [x for x in m.attempts[:a.index] if x.call.name == a.call.name and x.heard == a.heard] + [a]
    minted = minted_by(m, a)  # a call reading what `a` created (its job listed) is no other unit of the count
    others = len({x.action for x in turn if x.action != a.action and not _names_minted(x, minted)})
    return sum(x.action == a.action for x in turn) > asked(m, made) - others


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
