"""What kind of failure a failed call met, for the books (books.py): the same kind on argument after argument
is guessing, a new kind is news.

Two failures of a tool are of one kind when they carry the same standard codes and say the same words once the
words either call sent are left out. The codes are the members a standard names for one (an HTTP status, RFC
9110; JSON-RPC 2.0's and google.rpc.Status's `code`; POSIX's `errno`; SQLSTATE, ISO/IEC 9075); every word that
holds a digit (a number, an id, a time the server put there) reads as any other. What is the response's and not the
failure's is left out, as it is of answers (metadata.py: a request's identifier by its name or as the tool's answers
showed it, a moment, a timing), and so is a one-word member that moved alone to a word it never took before on two
failures in a row beside the same refusal of each guess (`moved_alone`): a request id of letters alone, whatever
its name. It must not fire on a query debugged through a syntax error, a missing column and a missing table (three
kinds), nor on an error word that moves beside a message naming nothing the call sent (`not_found`, `conflict`);
it still catches columns guessed one after another, each answered "no such column: <the guess>", and ids each
answered "order W2800001 not found" (one kind, whatever the guess).
"""
from __future__ import annotations

import re
from typing import Any, Iterable, NamedTuple

from ...core.canonical import clean_text
from .arguments import argument_leaves
from .metadata import key_name, without_metadata
from .responses import names_a_status

# The members a standard names for a failure's code, whose digits are the code and never a count: HTTP's status
# (RFC 9110's "status code", in any spelling: responses.names_a_status), JSON-RPC 2.0's and google.rpc.Status's
# `code`, POSIX's `errno`, ISO SQL's SQLSTATE.
_CODES = {"errno", "sqlstate"}
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")


class Failure(NamedTuple):
    """A failure as its kind is judged: its codes, its words (digits masked, case aside), the words its call sent."""
    codes: tuple[str, ...]
    words: tuple[str, ...]
    sent: frozenset[str]
    said: tuple[tuple[str, tuple[str, ...]], ...] = ()  # each member's words, by dotted path (metadata.py's form)
    about: frozenset[str] = frozenset()  # the members that name a word the call sent (its id, its column)


def failure(body: Any, arguments: Any, spelled: Any = None, declared: Iterable[str] = ()) -> Failure:
    """A failed call's answer (`body`, parsed or as text) read for its kind, beside the words of the `arguments`
    it was sent with, canonical and as the model `spelled` them, without what is the response's and not the
    failure's (metadata.py; `declared`: what the tool declares or its answers showed to be the response's)."""
    body = without_metadata(body, declared)
    texts = [clean_text(v).casefold() for _, v in [*argument_leaves(arguments), *argument_leaves(spelled)]
             if isinstance(v, str)]
    spelled_words = {w for t in texts for w in _WORD.findall(t)}
    sent = frozenset(w for w in spelled_words if not _DIGIT.search(w))
    codes, said, about = [], [], set()
    for path, key, value in _members(body, "", ""):
        if isinstance(value, bool) or value is None:
            continue
        if (key.lower() in _CODES or names_a_status(key)) \
                and not (isinstance(value, str) and clean_text(value).casefold() in texts):
            codes.append(f"{key.lower()}={value}")
        elif isinstance(value, str):
            words = _WORD.findall(clean_text(value).casefold())
            said.append((path, tuple("#" if _DIGIT.search(w) else w for w in words)))
            about.update([path] if spelled_words.intersection(words) else [])
    return Failure(tuple(sorted(codes)), tuple(w for _, part in said for w in part), sent, tuple(said),
                   frozenset(about))


def _members(value: Any, key: str, path: str) -> list[tuple[str, str, Any]]:
    """(dotted path, key, value) of every scalar in a failure's answer (member_leaves, with the path)."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items()
                for leaf in _members(v, str(k), f"{path}.{key_name(k)}" if path else key_name(k))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _members(v, key, path)]
    return [(path, key, value)]


def moved_alone(x: Failure, y: Failure) -> dict[str, str]:
    """The members two failures of one tool show to be the response's, as `metadata.moved_alone` does for answers,
    with the word each took in `y`: one word each time, letters alone (digits read as any other already), which
    neither call sent, moved while the codes and every other member stayed, among them a passage of two words or
    more about what each call sent (`order W2800001 not found`, then `order W2800002 not found`): the same refusal
    of each guess. Not a word beside a message that names nothing the call sent (`Request failed` beside
    `not_found`, then `conflict`): that word is all the failure says of itself."""
    if x.codes != y.codes or [p for p, _ in x.said] != [p for p, _ in y.said]:
        return {}
    sent = x.sent | y.sent
    moved: dict[str, str] = {}
    stayed = False
    for (path, was), (_, now) in zip(x.said, y.said):
        was_, now_ = [w for w in was if w not in sent], [w for w in now if w not in sent]
        if was_ == now_:
            stayed = stayed or len(was_) >= 2 and path in x.about and path in y.about
        elif len(was) == len(now) == len(was_) == len(now_) == 1:
            moved[path] = now[0]
        else:
            return {}
    return moved if stayed else {}


def without(x: Failure, paths: Iterable[str]) -> Failure:
    """The failure without the members at `paths`."""
    paths = frozenset(paths)
    said = tuple((p, part) for p, part in x.said if p not in paths)
    return x._replace(words=tuple(w for _, part in said for w in part), said=said)


def alike(x: Failure, y: Failure) -> bool:
    """Are two failures of one kind: the same codes, and the same words once the words either call sent are out?
    "no such column: started_at" and "no such column: start_time" are, when each call sent its own column."""
    sent = x.sent | y.sent
    return x.codes == y.codes and [w for w in x.words if w not in sent] == [w for w in y.words if w not in sent]
