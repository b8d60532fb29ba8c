"""A thing made, then made again to amend it: a write whose answer named a new thing (a ticket, an incident, a
booking), and the same write sent in a later user turn with every value of the first kept and only words added (the
detail the user gave since, a field it left out) makes a second thing where the user meant the first one to change.

**A write that made a thing, sent again in a later user turn with only words added, makes the first thing again
where it keeps a wording of the first whole (its subject), fills a field the first left out, or follows the user
naming what the first made (its id), and another write takes both what the first made and what the second changed**:
it must not fire on a second
thing worded apart from the first in the same fields (a narrower bug whose title and body both hold the first's and
add "in Safari"), whatever words the user asked for it in ("File another bug", "Abre otra incidencia", "noch ein
Ticket"), nor where nothing edits what the tool made (an email sent again with the line the user asked to add,
though other tools relabel or delete a sent email by its id: sending again is the only way to amend its body).

What the user meant is read without words of any language. A user who adds a detail gives the detail, and an agent
that puts it on a copy of the first thing keeps the first's subject as it was, or puts the detail where the first had
nothing (the body an incident was opened without); a thing of its own is worded apart in the fields the first had.
A user who names the first thing by the id its answer gave points at it. Only words added: in every argument in
which the two calls differ, the first's words are all among the second's (a comment grown by "Browser: Firefox
133", creative ids added to the same booking), and no value apart was given to tell them apart (asking.py). Made a
thing: the write ran, did not fail, and its answer holds a value that names a thing (sent_back.identities: one a
later call sent back, one another tool's parameter takes, at first sight a member named as an id) that nothing
before it showed and it did not send (an update names the id of what it changes). Another write takes it when one
of its parameters takes a value the first answered (`ticket_id` the ticket's `id`, GitHub's `issue_number` the
issue's `number`: sent_back.taken_back) and another is named as an argument the second changed (its `comment`). Nothing between was news but the write's own effect (own.py), and the
user's latest message asked for fewer runs. It must not fire either on a second thing the user asked for in the
later turn (a ticket for another page: not the first's grown), on a write told apart by a value the user gave (the
same reminder to another channel), nor on a write whose answer named no new thing (a file written again with the
section the user asked for: a write in place changes its thing).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from . import feedback
from .arguments import argument_leaves
from .asking import differences, given_before, told_apart
from .feedback import Detection
from .counts import asked
from .own import made_a_thing, marks, only_own_news
from .sent_back import _members, identities, name_words, taken_back
from .state import Detector, GuardedCall, Memory, identifiers
from .words import words

LEGITIMATE = """
name: second-issue-asked-for-in-spanish
title: An issue opened; in the user's next turn, in Spanish, another, narrower issue, its title and body grown
user: "El botón Guardar del editor no responde. Abre una incidencia, por favor."
user_turns: ["Abre otra incidencia aparte: en Safari tampoco responde el botón Guardar."]
tools:
  - {name: create_issue, description: Create an issue., parameters: {type: object, properties:
     {title: {type: string}, body: {type: string}}}, rules: [{results:
     [{data: {issue: {id: 5101, state: open}}}, {data: {issue: {id: 5102, state: open}}}]}]}
  - {name: update_issue, description: Edit an issue., parameters: {type: object, properties:
     {issue_id: {type: integer}, body: {type: string}}}, rules: [{result: {data: {issue: {id: 5101}}}}]}
model:
  script:
    - call: {tool: create_issue, args: {title: Botón Guardar sin respuesta,
             body: Al pulsar Guardar en el editor no pasa nada.}}
    - answer: Incidencia 5101 abierta.
    - call: {tool: create_issue, args: {title: Botón Guardar sin respuesta en Safari,
             body: Al pulsar Guardar en el editor no pasa nada en Safari.}}
    - answer: Incidencia 5102 abierta.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 4}
"""

_WORD = re.compile(r"\w+")


class AmendedAsNew(Detector):
    """A write that made a thing, sent again in a later user turn with only words added, keeping the first's subject,
    filling a field it left out or after the user named it, makes a second thing where the user meant the first to
    change."""

    pattern = "repeated_call"
    legitimate = LEGITIMATE

    def before_call(self, m: Memory, a: GuardedCall) -> Optional[Detection]:
        if not a.writes or m.info(a.call.name).idempotent_by(a.writes) or a.action in m.now.actions:
            return None
        made = [x for x in m.attempts[:a.index] if x.call.name == a.call.name and x.heard < a.heard and x.writes
                and x.ran and not x.failed and _grown(x, a) and made_a_thing(m, x) and _amendable(m, x, a)]
        given = given_before(m, a) if made else None
        said = m.read.user_texts[-1] if m.read.user_texts else ""
        same = [x for x in made if given is not None and not told_apart(x, a, given)
                and (_kept_wording(x, a) or _fills_left_out(x, a) or _points_at(m, x, said))
                and (not m.news_between(x, a) or only_own_news(m, x, a) or _found_nothing_between(m, x, a))]
        if not same or len(same) + 1 <= asked(m):
            return None
        return feedback.repeated_call(a.action, len(same), same, a, list(m.tools), feedback.echo_of(m))


def _amendable(m: Memory, x: GuardedCall, a: GuardedCall) -> bool:
    """Do the tools offer another write that takes both what `x` made and what `a` changes, so that it can be changed
    in place: one parameter ends with the words of the member that named the thing (an update's `ticket_id` the
    ticket's `id`, sent_back.taken_back), another with those of an argument in which `a` differs from `x` (its
    `body`)? A write that takes the thing alone (a label set on a sent email, its deletion) edits none of it."""
    made = set().union(*map(marks, taken_back(m, x, edits=True))) - marks(x.arguments)
    named = {name_words(k) for k, v in _members(x.content) if marks(v) & made}
    changed = {name_words(k) for k in _changed(x.arguments, a.arguments)}
    for name, info in m.tools.items():
        props = info.parameters.get("properties") if isinstance(info.parameters, Mapping) else None
        if name == x.call.name or not info.writes or not isinstance(props, Mapping):
            continue
        ends = [name_words(p) for p in props]
        if all(any(p[-len(w):] == w for p in ends for w in kind if w) for kind in (named, changed)):
            return True
    return False


def _changed(was: object, now: object) -> set[str]:
    """The names of the arguments whose values differ between two calls (one only `now` sends included)."""
    old: dict[str, list[object]] = {}
    new: dict[str, list[object]] = {}
    for values, call in ((old, was), (new, now)):
        for k, v in argument_leaves(call):
            values.setdefault(k, []).append(v)
    return {k for k in new if old.get(k) != new[k]}


def _kept_wording(x: GuardedCall, a: GuardedCall) -> bool:
    """Does `a` send a wording of `x` whole, where `x` sent it (the subject kept while the comment grew)? A copy
    grown by a detail keeps the first's subject; a thing of its own is worded apart."""
    kept = set(argument_leaves(a.arguments))
    return any(isinstance(v, str) and _a_wording(v) and (k, v) in kept for k, v in argument_leaves(x.arguments))


def _fills_left_out(x: GuardedCall, a: GuardedCall) -> bool:
    """Does `a` send an argument `x` left out (a body where the first incident had none)? The detail then goes where
    the first thing had nothing: the first, completed."""
    return any(not u and v for u, v in differences(x, a))


def _a_wording(text: str) -> bool:
    """Is a text a wording: two words or more, most of them no identifier (a subject, "500 error on the Renew
    passport page"; not a value written in words and numbers, a time "tomorrow 9:00")?"""
    said = words(text)
    return len(said) > 1 and 2 * sum(not identifiers(w) for w in said) > len(said)


def _points_at(m: Memory, x: GuardedCall, said: str) -> bool:
    """Does the user's message name what `x` made (its id or number, as the answer gave it) and `x` did not send?"""
    return bool(marks(said) & (set().union(*map(marks, identities(m, x))) - marks(x.arguments)))


def _found_nothing_between(m: Memory, x: GuardedCall, a: GuardedCall) -> bool:
    """Was every answer that was news between `x` and `a` one that found nothing (a search in other words that
    misses the thing `x` answered it made) or another thing the same tool made (a ticket for another PR of the
    user's list)? Neither is evidence against a write that named what it made; an answer that shows the thing
    gone (a 404, a failure) is."""
    return all(not y.brought or (y.ran and not y.failed and not y.writes and y.empty)
               or (y.call.name == x.call.name and y.writes and y.ran and not y.failed and made_a_thing(m, y))
               for y in m.attempts[x.index + 1:a.index])


def _grown(x: GuardedCall, a: GuardedCall) -> bool:
    """Does `a` differ from `x` only by words added: in every argument in which they differ, all of `x`'s words are
    among `a`'s (an argument only `a` sends adds words too)?"""
    pairs = differences(x, a)
    return bool(pairs) and all(set(_WORD.findall(u.casefold())) <= set(_WORD.findall(v.casefold()))
                               for u, v in pairs)
