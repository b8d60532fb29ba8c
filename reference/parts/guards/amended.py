"""A thing made, then made again to amend it: a write whose answer named a new id made a thing (a ticket, an
incident, a booking), and the same write sent in a later user turn with every value of the first kept and only
words added (the detail the user gave since, a field it left out) makes a second thing where the user meant the
first one to change.

Made a thing: the write ran, did not fail, and its answer holds a member named as an id (`id`, `ticket_id`) whose
value nothing before it showed and it did not send (an update names the id of what it changes). Only words added: in
every argument in which the two calls differ, the first's words are all among the second's (a comment grown by
"Browser: Firefox 133", creative ids added to the same booking), and no value apart was given to tell them apart
(asking.py). The tools offer a write that takes a thing's id (an update, a note: a parameter named as an id), so the
thing could have been changed in place. Nothing between was news but the write's own effect (own.py), the user's
latest message asked for fewer runs, and it does not name the kind of thing the tool makes. **The kind is what the
write's own answer and the tools' schemas call the thing: the member that holds the id the write minted
(`reminder_id`, the `ticket` of `ticket.id`), the `object` or `type` beside it (Stripe's `object`, JSON:API's
`type`), or, where the answer names none, a parameter named as an id of a write that edits it (`issue_id` of
`update_issue`), named by the user's message in a word that holds it but for its last letter, case aside ("tickets",
"Ticket", "entries" for `entry`)**: it must not fire on "file another bug ... keep it its own issue" where the
tracker's edit takes an `issue_id`, whatever the tool is called (`create_issue`, `ticket_create`, `tickets-create`,
`NewTicket`); a user who adds a detail names no kind. It must not fire on a second thing the user asked for in the
later turn (a ticket for another page; a narrower bug whose summary holds the first's), on a write told apart by a
value the user gave (the same reminder to another channel), nor on a write whose answer named no new id (a file
written again with the section the user asked for: a write in place changes its thing), nor where nothing edits what
the tool made (an email sent again with the line the user asked to add: sending again is the only way to amend it).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from . import feedback
from .asking import differences, given_before, told_apart
from .feedback import Detection
from .counts import asked
from .own import id_member, made_a_thing, marks, only_own_news
from .state import Detector, GuardedCall, Memory

LEGITIMATE = """
name: second-ticket-for-another-page-in-a-later-turn
title: A ticket opened, then, in the user's next turn, another ticket for another page, by the same requester
user: "The renew passport page shows a 500 error when I click Continue. My email is sam.k@example.org"
user_turns: ["The login page times out too. Open a ticket for that as well."]
tools:
  - {name: create_ticket, description: Create a support ticket., parameters: {type: object, properties:
     {subject: {type: string}, comment: {type: string}, requester_email: {type: string}}}, rules: [{results:
     [{data: {ticket: {id: 88412, status: new}}}, {data: {ticket: {id: 88419, status: new}}}]}]}
  - {name: update_ticket, description: Add a comment to a ticket., parameters: {type: object, properties:
     {ticket_id: {type: integer}, comment: {type: string}}}, rules: [{result: {data: {ticket: {id: 88412}}}}]}
model:
  script:
    - call: {tool: create_ticket, args: {subject: 500 error on the Renew passport page, comment: HTTP 500 after
             clicking Continue on the Renew passport page., requester_email: sam.k@example.org}}
    - answer: Logged as ticket 88412.
    - call: {tool: create_ticket, args: {subject: Login page times out, comment: The login page times out.,
             requester_email: sam.k@example.org}}
    - answer: Logged as ticket 88419.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 4}
"""

_WORD = re.compile(r"\w+")


class AmendedAsNew(Detector):
    """A write that made a thing, sent again in a later user turn with all the first one's values and only words
    added, makes a second thing where the user meant the first to change."""

    pattern = "repeated_call"
    legitimate = LEGITIMATE

    def before_call(self, m: Memory, a: GuardedCall) -> Optional[Detection]:
        if not a.writes or m.info(a.call.name).idempotent_by(a.writes) or a.action in m.now.actions:
            return None
        if not _amendable(m, a):
            return None  # nothing edits what it made (a sent email): sending again is the only way to amend it
        made = [x for x in m.attempts[:a.index] if x.call.name == a.call.name and x.heard < a.heard and x.writes
                and x.ran and not x.failed and _grown(x, a) and made_a_thing(m, x)]
        given = given_before(m, a) if made else None
        same = [x for x in made if given is not None and not told_apart(x, a, given)
                and (not m.news_between(x, a) or only_own_news(m, x, a) or _found_nothing_between(m, x, a))]
        said = m.read.user_texts[-1] if m.read.user_texts else ""
        if not same or len(same) + 1 <= asked(m) or _names_the_kind(said or "", kinds(m, same)):
            return None
        return feedback.repeated_call(a.action, len(same), same, a, list(m.tools), feedback.echo_of(m))


def _amendable(m: Memory, a: GuardedCall) -> bool:
    """Do the tools offer another write that takes a thing's id (an update of a ticket, a note on an incident: a
    parameter named as an id), so that what `a`'s tool made can be changed in place?"""
    for name, info in m.tools.items():
        props = info.parameters.get("properties") if isinstance(info.parameters, Mapping) else None
        if name != a.call.name and info.writes and isinstance(props, Mapping) and any(map(id_member, props)):
            return True
    return False


def _names_the_kind(said: str, kinds: set[str]) -> bool:
    """Does the user's message name one of the kinds: a word of it that begins with the kind, or with all of it but
    its last letter where that leaves more than `_KIND` letters, case aside, so that inflections at a word's end
    ("tickets", "Ticket", "entries", "incidencias") name it too?"""
    words = [w.casefold() for w in _WORD.findall(said)]
    stems = {k if len(k) <= _KIND else k[:-1] for k in kinds}
    return any(w.startswith(stem) for w in words for stem in stems)


_KIND = 3  # letters: a shorter member name ("id" less its suffix, "x") names no kind of thing
# The members standards use to wrap a document's primary data whatever its kind (JSON:API `data`, JSON-RPC 2.0
# `result`): the member around an id there is the envelope, not the thing's kind.
_ENVELOPES = ("data", "result")
# The members that say which kind of thing an object is (Stripe's `object`, JSON:API's `type`).
_KIND_MEMBERS = ("object", "type")


def kinds(m: Memory, made: list[GuardedCall]) -> set[str]:
    """What the things the writes `made` made are called, never by the tool's own name: by their answers, around
    the ids they minted (`_answer_kinds`); where the answers name no kind (`{"data": {"id": "WEB-4121"}}`), by the
    id parameters of the other writes, that edit a thing (`issue_id` of `update_issue`)."""
    found = {k for x in made for k in _answer_kinds(x.content, "", marks(x.arguments)) if len(k) >= _KIND}
    if not found:
        for name, info in m.tools.items():
            props = info.parameters.get("properties") if isinstance(info.parameters, Mapping) else None
            if made and name != made[0].call.name and info.writes and isinstance(props, Mapping):
                found |= {_less_id(p) for p in props if id_member(p)}
    return {k.casefold() for k in found if len(k) >= _KIND}


def _answer_kinds(value: object, holder: str, sent: set[str]) -> set[str]:
    """The kinds an answer names around the ids it minted (not those the call sent: a `project_id` it was given), at
    any depth: the id member's name less its id suffix (`reminder_id`), the member that holds an `id` (`ticket` of
    `ticket.id`), an `object` or `type` beside it; `holder` is the member the value sits under."""
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= _answer_kinds(item, holder, sent)
    if not isinstance(value, Mapping):
        return found
    for key, v in value.items():
        key = str(key)
        if id_member(key) and not isinstance(v, (dict, list)) and not marks(v) <= sent:
            found |= {_less_id(key)} - {""}
            if key.casefold() in ("id", "uuid") and holder and holder.casefold() not in _ENVELOPES:
                found.add(holder)
            found |= {str(value[k]) for k in value if str(k) in _KIND_MEMBERS and isinstance(value[k], str)}
        found |= _answer_kinds(v, key, sent)
    return found


def _less_id(key: str) -> str:
    """A member's name without the id it says it holds, and without what it belongs to before it (`ticket_id`,
    `ticketId`, `data.ticket_id`: "ticket"); `id` alone leaves nothing."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", key.rsplit(".", 1)[-1])
    words = words[:-1] if words and words[-1].casefold() in ("id", "uuid") else words
    return words[-1] if words else ""


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
