"""What a call of unknown effect did, by its answer (a tool whose annotations, HTTP method and name say nothing of
its effects: a shell, a wrapped API): an answer that gives only the state of the thing the call names reads it
(`reads_what_it_names`), and one that acknowledges a record holding an id nothing sent or showed made a thing
(`minted_a_thing`), runs that each made one may be the things a user's count names (`each_made`), and a write that
made nothing sets the state of what it names, which a read naming it may show anew (`set_what_a_read_shows`). repeats.py
asks them before it judges a call asked again; each function states its rule in one sentence with the legitimate
case it must not fire on."""
from __future__ import annotations

from .arguments import argument_leaves
from .own import a_name, made_a_thing, marks, minted_by
from .sent_back import id_member, taken_back
from .metadata import a_number
from .state import GuardedCall, Memory, lists_things
from .words import words


def reads_what_it_names(x: GuardedCall) -> bool:
    """Did the call `x`, of a tool whose definition says nothing of its effects, answer only the state of the thing
    it names? It sends names (letters and digits together: `rf_1`) and nothing it could add or write (no number, no
    wording of two words or more), and its answer, the call's own echoes aside, holds words and beside them only
    flags and nulls: no number, no name of letters and digits, no member named as an id. What a write's answer
    holds that a read's does not is what the write made (a minted id) or a total it moved; an answer with neither
    reads the thing the call names, whatever language the tool's name is in, so the identical call runs once more
    and is judged by its answer: a refund's status polled until it went through. Not a refund posted again and
    answered with a new refund id each time, nor a comment sent again with its text."""
    if not (x.ran and not x.failed and isinstance(x.content, dict)):
        return False
    sent = [v for _, v in argument_leaves(x.arguments)]
    if not any(isinstance(v, str) and a_name(v) for v in sent) \
            or any(isinstance(v, str) and len(words(v)) > 1 or a_number(v) for v in sent):
        return False
    said = argument_leaves(x.content)
    return any(isinstance(v, str) and v.strip() for _, v in said) and all(
        v is None or isinstance(v, bool) or (isinstance(v, str) and not any(c.isdigit() for c in v)
                                             and not id_member(k.rsplit(".", 1)[-1]))
        for k, v in said)


def minted_a_thing(m: Memory, x: GuardedCall) -> bool:
    """Did the call `x` make a thing? It did when its answer acknowledges one record (no content and no list:
    `responses.reports`), sends back nothing the call sent, and holds a value that names a thing (one another tool's
    parameter takes, sent_back.taken_back; at first sight, a member named as an id) that no call sent and no answer
    before it showed: a room assigned as `{"room": "214", "assignment_id": "as-77801"}`. Not a
    search answering the ids of its hits (a list), nor a read of the thing the call names (its answer names it
    back) beside the ids of the records it relates to (a run's plan)."""
    if not (x.ran and not x.failed) or x.reports or x.echoed or lists_things(x.content):
        return False
    named = taken_back(m, x)
    ids = set().union(*(marks(v) for k, v in argument_leaves(x.content)
                        if id_member(str(k).rsplit(".", 1)[-1]) or str(v) in named))
    return bool(ids - marks(x.arguments) - set().union(*(marks(y.content) for y in m.attempts[:x.index])))


def each_made(m: Memory, a: GuardedCall) -> bool:
    """Did each run of the call `a` so far make a new thing (an id its answer minted, or a name nothing had shown)?
    Then a count of things the user wrote may name them (counts.asked): three creates answering three new ids for
    "create 3 new tickets". Not the same edit sent again for "fix the 3 failing tests": an edit makes nothing."""
    runs = [x for x in m.by_action.get(a.action, []) if x.ran and not x.failed]
    return bool(runs) and (all(minted_a_thing(m, x) for x in runs) or len(minted_by(m, a)) >= len(runs))


def set_what_a_read_shows(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Does the write `a`, of a tool whose definition says nothing of its effects (MCP's defaults then assume an open
    world), set the state of a thing a read since `last` showed: its answer made nothing (`made_a_thing`), and a read
    between names what it names (one of its texts whole, as a word of that answer)? Then the world it acts on was
    shown it anew: the same switch-off runs once more after a state read listed the light still on. Not a record
    added again after a read of its trend (its answer minted the record's id), nor a plan written again after a
    read of a step's answer that names none of it."""
    if not m.info(a.call.name).unknown or made_a_thing(m, last):
        return False
    named = [tuple(w.casefold() for w in words(v)) for _, v in argument_leaves(a.arguments) if isinstance(v, str)]
    for x in m.attempts[last.index + 1:a.index]:
        if x.taught:
            shown = [w.strip(_EDGES).casefold() for _, v in argument_leaves(x.content) if isinstance(v, str)
                     for w in words(v)]
            if any(n and any(tuple(shown[i:i + len(n)]) == n for i in range(len(shown))) for n in named):
                return True
    return False


_EDGES = "'\"()[]{},.;:!?"  # the punctuation a word of a listing carries around it ("'on'", "Flur,")
