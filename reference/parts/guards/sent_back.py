"""What an answer gave to name a thing by, whatever its member is called.

**A value of an answer names a thing when the tools take it back: a later call sent it back whole, as one of its
arguments, or another tool's parameter takes it by its schema, its name ending with the member's (in text, the
word before the value: `{'number': 4242}`, "issue number 4242") and its type admitting the value (`issue_number`
takes GitHub's `number`, `ticket_id` an `id`, Slack's `chat.update` the `ts` a post answered)**: it must not fire on a count read from (batches loaded, each read from the total the load
answered, show new rows, which is news the read brings whatever it was sent), nor on a state word or a short
number another tool takes (`status: "open"`, a count of 3: too short to tell one thing from another).

Services name their ids as they like (a Slack message's `ts`, a GitHub issue's `number`, Jira's `key`, a
Kubernetes object's `uid`), so a member's name is only the first-sight fallback, for an answer whose values no
tool takes back: a name whose last word is `id` or `uuid`, whatever joins its words (JSON:API's `id`, JSON-LD's
`@id`, `ticket_id`, `branchId`, `TicketID`). What the tools take back names the thing the call made (own.py: minted by
the call, not news of the world; amended.py: an edit that takes it changes it in place).

**A call that asks by what a write made reads that write's effect (`asks_back`): it sends back a value the write's
answers named a thing by, or a value the write sent inside what it makes under another member (a count of the rows
whose `id` is the one an insert's document carried)**: it must not fire on the place both act on, sent by both under
the same member (a collection, an issue whose comments are listed), which is no thing the write made.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Optional

from .arguments import argument_leaves
from .state import GuardedCall, Memory, identifiers

_WORD = re.compile(r"[\w./:@-]+")


def sent_back(m: Memory, x: GuardedCall, until: Optional[GuardedCall] = None) -> frozenset[str]:
    """The values of `x`'s answer, whole or as words of its text, that a call after `x` (and before `until`) sent
    back as one of its arguments, and that `x` did not send itself."""
    if x.content is None:
        return frozenset()
    later = m.attempts[x.index + 1:until.index if until is not None else len(m.attempts)]
    sent = {str(v) for y in later for _, v in argument_leaves(y.arguments)
            if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    if not sent:
        return frozenset()
    leaves = {str(v) for _, v in argument_leaves(x.content) if not isinstance(v, (bool, dict, list))}
    words = {w.strip("./:@-") for leaf in leaves for w in _WORD.findall(leaf)}
    return frozenset((leaves | words) & sent - {str(v) for _, v in argument_leaves(x.arguments)})


_RUN = re.compile(r"[^\W_]+")  # letters and digits, in any script: what `_`, `-`, `.`, `@` and spaces join


@lru_cache(maxsize=4096)
def name_words(name: str) -> tuple[str, ...]:
    """A member's or a parameter's name as its words, case aside, whatever joins them: `issue_number`,
    `issueNumber`, `IssueNumber` and `issue-number` are (issue, number); `TicketID` is (ticket, id); a word ends
    where a capital follows a small letter, where a capital that a small letter follows ends a run of capitals, and
    where letters meet digits (in any script that has case)."""
    found: list[str] = []
    for run in _RUN.findall(str(name)):
        start = 0
        for i in range(1, len(run)):
            before, c, after = run[i - 1], run[i], run[i + 1:i + 2]
            if (c.isupper() and (before.islower() or before.isdigit() or before.isupper() and after.islower())) \
                    or (c.isdigit() != before.isdigit()):
                found.append(run[start:i])
                start = i
        found.append(run[start:])
    return tuple(w.casefold() for w in found)


def id_member(key: str) -> bool:
    """Does a member's name say it holds an id (JSON:API's `id`, JSON-LD's `@id`, `email_id`, `branchId`,
    `TicketID`, `uuid`)? The first-sight fallback only: what the tools take back decides first (`identities`)."""
    words = name_words(key)
    return bool(words) and words[-1] in ("id", "uuid")


def _takes(schema: object, value: object) -> bool:
    """Does a parameter's schema accept the value as it stands (a number where it says `integer` or `number`)?"""
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    kinds = {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else set()
    if not kinds & {"integer", "number"} or "string" in kinds:
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        or isinstance(value, str) and value.strip().lstrip("-").isdigit()


def _parameters(m: Memory, x: GuardedCall, edits: bool) -> list[tuple[tuple[str, ...], object]]:
    """The names (as words) and schemas of the parameters the tools other than `x`'s require (all of a tool's,
    where it requires none); `edits`: of the writes only (those that could change what `x` made)."""
    found = []
    for name, info in m.tools.items():
        if name == x.call.name or edits and not info.writes:
            continue
        params = info.parameters if isinstance(info.parameters, Mapping) else {}
        props = params.get("properties")
        if not isinstance(props, Mapping):
            continue
        required = params.get("required")
        names = [p for p in props if not isinstance(required, list) or not required or p in required]
        found += [(name_words(p), props[p]) for p in names if name_words(p)]
    return found


def _members(value: object, key: str = "") -> list[tuple[str, object]]:
    """(member name, value) of every scalar of an answer, at any depth, and in its texts each word under the word
    before it as its label (`{'number': 4242}`, a Python repr; "issue number 4242")."""
    if isinstance(value, Mapping):
        return [leaf for k, v in value.items() for leaf in _members(v, str(k))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _members(v, key)]
    if value is None or isinstance(value, bool):
        return []
    said = [w for w in (w.strip("./:@-") for w in _WORD.findall(value)) if w] if isinstance(value, str) else []
    return [(key, value)] + [(label, w) for label, w in zip(said, said[1:]) if w != value]


def taken_back(m: Memory, x: GuardedCall, edits: bool = False) -> frozenset[str]:
    """The values of `x`'s answer, each distinct enough to name one thing, that another tool's parameter takes by
    its schema: the parameter's name ends with the member's (`issue_number` takes GitHub's `number`, `ticket_id`
    an `id`, the `ts` of Slack's `chat.update` the `ts` a post answered) and its type admits the value. `edits`:
    only the parameters of the other writes."""
    key = (id(m), x.index, edits)
    kept = _TAKEN.get(key)
    if kept is not None and kept[0] is x.content and kept[1] is m.tools:
        return kept[2]  # an answer read once per call: the rules ask again at every later call
    found = _taken_back(m, x, edits)
    if len(_TAKEN) > 512:
        _TAKEN.clear()
    _TAKEN[key] = (x.content, m.tools, found)
    return found


# (the run's memory, the call's place, edits) -> (the answer, the tools, what they take of it); checked by identity
_TAKEN: dict[tuple[int, int, bool], tuple[object, object, frozenset[str]]] = {}


def _taken_back(m: Memory, x: GuardedCall, edits: bool) -> frozenset[str]:
    ends: dict[tuple[str, ...], list[object]] = {}  # every ending of a parameter's name -> the schemas it ends
    for p, schema in _parameters(m, x, edits):
        for i in range(len(p)):
            ends.setdefault(p[i:], []).append(schema)
    if not ends or x.content is None:
        return frozenset()
    lasts = tuple({p[-1] for p in ends})  # a name that ends in none of these is no parameter's: read no further
    return frozenset(str(v) for key, v in _members(x.content) if key.casefold().endswith(lasts)
                     and any(_takes(s, v) for s in ends.get(name_words(key), ())) and _distinct(v))


def _distinct(value: object) -> bool:
    """Can a value name one thing: an identifier (a word with a digit, or joined by a dot, a dash, a slash) of three
    letters and digits or more, as own.marks has them (a count of 3, a state "open" name nothing)?"""
    return any(sum(c.isalnum() for c in w) >= 3 for w in identifiers(str(value)))


def identities(m: Memory, x: GuardedCall) -> frozenset[str]:
    """The values `x`'s answer gave to name a thing by: what a later call sent back whole (`sent_back`), what a
    tool's parameter takes (`taken_back`), and, at first sight, what a member named as an id holds."""
    named = {str(v) for k, v in _members(x.content) if id_member(k)}
    return sent_back(m, x) | taken_back(m, x) | named


def asks_back(m: Memory, a: GuardedCall, x: GuardedCall) -> bool:
    """Does the call `x`, asked after runs of the write `a`, send back a value one of their answers gave to name
    what it made, as the tools take it (`taken_back`; at first sight a member named as an id): an issue read by the
    number its create answered, a process's output read by the PID its start printed? Then `x` asks about that
    write's effect. Not a read from a total a load answered: no parameter takes a total."""
    sent = {str(v) for _, v in argument_leaves(x.arguments) if isinstance(v, (str, int, float))
            and not isinstance(v, bool)}
    runs = [y for y in m.by_action.get(a.action, []) if y.ran and not y.failed and y.index < x.index]
    if runs and _asks_by_what_it_sent(a, x):
        return True
    return bool(sent) and any(sent & (taken_back(m, y) | {str(v) for k, v in _members(y.content) if id_member(k)})
                              for y in runs)


def asks_back_anew(m: Memory, a: GuardedCall, x: GuardedCall) -> bool:
    """Does `x`, asking back by what the write `a` made, answer otherwise than the same read asked of the round
    before, in more than the values that name what the rounds made and the numbers that clock them (a test run read
    by its PID: FAIL after PASS)? Then the round brought news of the world (a flaky test), not the write's doing."""
    if not asks_back(m, a, x):
        return False
    names = {str(v) for y in m.by_action.get(a.action, []) if y.ran and not y.failed and y.index < x.index
             for v in taken_back(m, y) | {str(v) for k, v in _members(y.content) if id_member(k)}}
    before = [y for y in m.attempts[:x.index] if y.call.name == x.call.name and y.action != x.action and y.ran
              and not y.failed and _apart(y.arguments, names) == _apart(x.arguments, names)]
    return bool(before) and _apart(before[-1].content, names) != _apart(x.content, names)


def _apart(value: object, names: set[str]) -> object:
    """A value with the names in `names` and its numbers blanked (a run's clock, its duration, its PID), wherever they
    stand, whole or in its texts: what is left is what the run said."""
    if isinstance(value, Mapping):
        return {k: _apart(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_apart(v, names) for v in value]
    if str(value) in names or isinstance(value, (int, float)) and not isinstance(value, bool):
        return None
    if isinstance(value, str):
        return _DIGITS.sub("#", _WORD.sub(lambda w: "#" if w.group().strip("./:@-") in names else w.group(), value))
    return value


_DIGITS = re.compile(r"\d+")


def _asks_by_what_it_sent(a: GuardedCall, x: GuardedCall) -> bool:
    """Does `x` ask by a value that names one thing and that the write `a` sent inside what it makes, under another
    member than `x` sends it (a count of the rows whose `id` is the one an insert's document carried)? The values
    both send under the same member are where both act (a database and a collection both name), not what `a` made."""
    mine, its = _paths(x.arguments), _paths(a.arguments)
    return any(_distinct(v) and v in {w for q, w in its if q != path} for path, v in mine)


def _paths(value: object, path: str = "") -> set[tuple[str, str]]:
    """(dotted path, value as text) of every scalar of a call's arguments; list positions aside."""
    if isinstance(value, Mapping):
        return {leaf for k, v in value.items() for leaf in _paths(v, f"{path}.{k}" if path else str(k))}
    if isinstance(value, list):
        return {leaf for v in value for leaf in _paths(v, path)}
    return set() if value is None or isinstance(value, bool) else {(path, str(value))}

