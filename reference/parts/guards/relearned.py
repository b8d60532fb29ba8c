"""What the guard learns late about a tool's answers, read back into what it already booked: once a member is known
to be the response's (it moved alone beside an otherwise equal answer, metadata.py; or beside the same refusal of
each guess, failures.py), every comparison of that tool's answers and failures leaves it out, the earlier ones'
too. A reworded search that brought the same hits is then the same answer however its timing is named."""
from __future__ import annotations

from typing import Any

from .failures import alike, moved_alone as moved_alone_failing, without
from .metadata import is_moment_name
from .results import ResultReader
from .state import GuardedCall, Memory


def read_again(m: Memory, reader: ResultReader, a: GuardedCall, declared: frozenset) -> None:
    """Once members of the answers of `a`'s tool are known to be the response's, every comparison of its answers leaves them
    out, the earlier answers' too: each earlier answer is read again without them, and the books that hold it by its
    fingerprint (the answers a call got, the questions it answered and how many times in a row) follow. Answers that
    become equal so join one chain of replies where nothing else new was said between them."""
    tool = a.call.name
    owned, alone = m.owned.get(tool, frozenset()), m.alone.get(tool, frozenset())
    now: dict[str, str] = {}  # an earlier answer's fingerprint -> the same answer's without them
    for x in m.attempts[:a.index]:
        if x.call.name != tool or not x.ran or x.failed or x.result is None:
            continue
        moments: dict[str, Any] = {}
        result, _ = reader.read(True, x.content, declared, False, owned, moments)
        if by_form := {k for k in moments if not is_moment_name(k)} - alone:
            result, _ = reader.read(True, x.content, declared, False, owned | by_form)
        if result != x.result:
            now.setdefault(x.result, result)
            x.result = result
    if not now:
        return
    for action in {x.action for x in m.attempts if x.call.name == tool}:
        if action in m.given:
            m.given[action] = {now.get(r, r) for r in m.given[action]}
        if action in m.last_result:
            epoch, heard, r = m.last_result[action]
            m.last_result[action] = (epoch, heard, now.get(r, r))
        if action in m.moments:
            m.moments[action] = (now.get(m.moments[action][0], m.moments[action][0]), m.moments[action][1])
    for key in [k for k in m.answers if k[0] == tool and k[2] in now]:
        joined = m.answers.setdefault((*key[:2], now[key[2]], *key[3:]), [])
        joined += m.answers.pop(key)
        joined.sort(key=lambda x: x.index)
    questions: dict[tuple, list[GuardedCall]] = {}
    for x in m.attempts:
        if x.call.name == tool and x.reply is not None:
            if x.reply[2] in now:
                m.replies.pop(x.reply, None)
                x.reply = (*x.reply[:2], now[x.reply[2]], *x.reply[3:])
            questions.setdefault(x.reply, []).append(x)
    for key in {x.reply for x in m.attempts if x.call.name == tool and x.result in now.values()} - {None}:
        prev = None
        for y in questions[key]:  # a chain goes on where nothing new was said between two equal answers
            if prev is not None and not any(z.told_to != z.told_from for z in m.attempts[prev.index + 1:y.index]):
                y.alike, y.alike_before = prev.alike + 1, prev
            else:
                y.alike, y.alike_before = 1, None
            prev = y
        m.replies[key] = (prev.alike, prev.told_to, prev)


def failed_alike(m: Memory, a: GuardedCall) -> None:
    """A member of a tool's failures that moved alone twice in a row, to a word it never took before (a request's
    id of letters alone: `abcdef`, `ghijkl`, `mnopqr`), is the response's (failures.moved_alone): left out of the
    tool's answers from now on, and of its failures, these and the earlier ones. Twice: a failure's own word that
    moved once beside the same message (`not_found`, then `conflict`) is a new kind."""
    tool = a.call.name
    last, moves = m.failing.get(tool, (None, {}))
    moved = moved_alone_failing(last, a.error_class) if last is not None else {}
    taken = {p: moves[p] | {w} if p in moves and w not in moves[p] else {_word(last, p), w} for p, w in moved.items()}
    learned = {p for p, words in taken.items() if len(words) > 2}
    if learned:
        m.own[tool] = m.own.get(tool, frozenset()) | learned
        for x in m.attempts[:a.index + 1]:
            if x.call.name == tool and x.error_class is not None:
                x.error_class = without(x.error_class, learned)
        for key in [k for k in m.errors if k[0] == tool]:
            kind = without(key[1], learned)
            joined = m.errors.pop(key)
            kind = next((k for t, k in m.errors if t == tool and alike(k, kind)), kind)
            m.errors[tool, kind] = m.errors.get((tool, kind), set()) | joined
    m.failing[tool] = (a.error_class, {p: w for p, w in taken.items() if p not in learned})


def _word(x: Any, path: str) -> str:
    """The word a failure's member said."""
    return next(part[0] for p, part in x.said if p == path)
