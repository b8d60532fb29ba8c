"""A write sent again in other words: a write that differs from one that took only in the agent's own wording
acts on the same thing again, so it is the same write sent again, unless something new since says the first did
not land or the user asked for another.

Two calls of one tool are told apart by a value the agent was given (asking.py: the user's words, an earlier
answer); what the agent wrote by itself (an emoji before the same release notes, a fresh idempotency key it made
up) is wording. Only wording apart: every argument in which the two differ is free text naming the same values
(identifiers: a version, a link, a flag) on both sides, and not only its numbers moved (a wait that grows), or an
idempotency key made up on both sides, a word nothing the agent was given holds (a new key does not make a charge
another charge: the draft IETF Idempotency-Key header leaves the key to the client, so the server cannot tell them
apart). An idempotency key is the argument the standard or the API names so: the header's name, or a parameter
the tool's schema describes as one; any other made-up word (a test user's invented email, a request's own id) is a
value the agent chose, and two things it chose to make apart are two things.
The first took: it ran, did not fail, and answered as a write answers, with a structured acknowledgement or the
command tag of rows changed (`INSERT 0 1`, PostgreSQL's protocol; a plain text may be an error in words, a shell's
output is what it read). Nothing between was news but the write's own effect (own.py: the channel history showing
the post it made), in the same user turn, and the user's latest message asked for fewer runs (counts.py's `asked`:
"two times"). It must not fire on the same notes posted to the channels the user listed (told apart), a repost the
user asked for, a correction after a failure (the first did not take), nor an edit run again after an error the
edit did not make (news between). It cannot see a changed choice the user asked for in a later turn (insurance
added to a booking by booking again): that needs what the tool's answer says the first write made (a thing made,
then made again with only words added in a later turn, is amended.py's).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from . import feedback
from .arguments import argument_leaves
from .asking import NUMBER, Given, given_before, told_apart
from .feedback import Detection
from .counts import asked
from .own import a_name, marks, only_own_news
from .state import Detector, GuardedCall, Memory

LEGITIMATE = """
name: notes-posted-to-two-listed-channels
title: The same notes posted to the two channels the user listed
user: Post "v2 is out" to the channels C01TEAM and C02NEWS.
tools:
  - {name: post_message, description: Post a new message to a channel., parameters: {type: object, properties:
     {channel: {type: string}, text: {type: string}}}, rules: [{results: [{data: {ok: true, ts: '1.1'}},
     {data: {ok: true, ts: '2.2'}}]}]}
model:
  script:
    - call: {tool: post_message, args: {channel: C01TEAM, text: v2 is out}}
    - call: {tool: post_message, args: {channel: C02NEWS, text: ':rocket: v2 is out'}}
    - answer: Posted to both channels.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 3}
"""


class ResentWrite(Detector):
    """A write that differs from one that took only in the agent's own wording is the same write sent again."""

    pattern = "repeated_call"
    legitimate = LEGITIMATE

    def before_call(self, m: Memory, a: GuardedCall) -> Optional[Detection]:
        info = m.info(a.call.name)
        if not a.writes or info.idempotent_by(a.writes) or a.action in m.now.actions:
            return None
        given = given_before(m, a)
        took = [x for x in m.attempts[:a.index] if x.call.name == a.call.name and x.action != a.action
                and x.heard == a.heard and x.ran and not x.failed and x.writes
                and _acknowledged(x)
                and not (info.unknown and x.reports and not changed_rows(x.content))]  # answered content: it read
        same = [x for x in took if not told_apart(x, a, given) and _reworded(x, a, given, info.parameters)
                and (not m.news_between(x, a) or only_own_news(m, x, a, reworded=True))]
        if not same or len(same) + 1 <= asked(m):  # as many as the user asked for are no duplicate
            return None
        return feedback.repeated_call(a.action, len(same), same, a, list(m.tools), feedback.echo_of(m))


def _reworded(x: GuardedCall, a: GuardedCall, given: Given, schema: Mapping[str, Any]) -> bool:
    """Do the two calls differ only in what the agent wrote by itself: every argument in which they differ is
    either free text naming the same values (identifiers, numbers long enough to tell things apart) on both sides
    and sending more than a word, or an idempotency key made up on both sides (`_made_up`)?"""
    was, now = _by_name(x.arguments), _by_name(a.arguments)
    pairs = [(key, was.get(key, ""), now.get(key, "")) for key in dict.fromkeys([*was, *now])
             if was.get(key, "") != now.get(key, "")]
    return bool(pairs) and all((idempotency_key(key, schema) and _made_up(u, v, given))
                               or (len(u.split()) > 1 and marks(u) == marks(v) and marks(u)
                                   and NUMBER.sub("#", u) != NUMBER.sub("#", v))
                               for key, u, v in pairs)


def _by_name(arguments: Any) -> dict[str, str]:
    """A call's arguments as text, by the name of the key they sit under (asking.differences, keys kept)."""
    out: dict[str, list[str]] = {}
    for key, value in argument_leaves(arguments):
        out.setdefault(str(key), []).append(str(value))
    return {k: " ".join(v) for k, v in out.items()}


def idempotency_key(key: str, schema: Mapping[str, Any]) -> bool:
    """Is an argument an idempotency key: named as the draft IETF Idempotency-Key header names it (any case, `-` or
    `_`: `idempotency_key`, `idempotencyKey`), or described so by the tool's schema (a `client_token` whose
    description says it makes the request idempotent)? A `request_id` the schema says nothing of is a value."""
    name = key.rsplit(".", 1)[-1]
    if re.sub(r"[-_]", "", name).casefold() == "idempotencykey":
        return True
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    prop = props.get(name) if isinstance(props, Mapping) else None
    said = prop.get("description") if isinstance(prop, Mapping) else None
    return isinstance(said, str) and "idempoten" in said.casefold()


_TOKEN = re.compile(r"\w+")


def _made_up(u: str, v: str, given: Given) -> bool:
    """Are two one-word values apart only by words the agent made up: on each side a word of letters and digits
    together that nothing it was given holds, whole or in part (a fresh idempotency key, `a5521-7f3c1e` then
    `a5521-91bd04`)? A number, a word the user wrote or an answer showed (a customer id, a ticket a search found),
    or a name built on one (`login1` for the login fix the user named) is a choice."""
    if len(u.split()) > 1 or len(v.split()) > 1:
        return False
    was, now = set(_TOKEN.findall(u.casefold())), set(_TOKEN.findall(v.casefold()))
    only_u, only_v = was - now, now - was
    words = [w for w in given.words if len(w) >= _PART and not w.isdigit()]
    return bool(only_u) and bool(only_v) and all(a_name(w) and not any(g in w for g in words)
                                                 for w in only_u | only_v)


_PART = 3  # letters and digits: a given word shorter than this is too common to tell a name built on it


def _acknowledged(x: GuardedCall) -> bool:
    """Did the write answer as one that took: a structured answer (a JSON object or list), or the command tag with
    which PostgreSQL's protocol completes a data change of at least one row (`INSERT 0 1`, `UPDATE 3`); not a
    plain text that may be an error in words ("Error updating page: 409 Client Error") or a shell's output?"""
    return (isinstance(x.content, (dict, list)) and bool(x.content)) or changed_rows(x.content)


# PostgreSQL's CommandComplete tag for a data change: INSERT oid rows, UPDATE rows, DELETE rows, MERGE rows.
_COMMAND_TAG = re.compile(r"(INSERT \d+|UPDATE|DELETE|MERGE) ([1-9]\d*)")


def changed_rows(content: object) -> bool:
    """Is an answer the command tag of a data change that changed rows (`INSERT 0 1`, not `UPDATE 0`)?"""
    return isinstance(content, str) and bool(_COMMAND_TAG.fullmatch(content.strip()))
