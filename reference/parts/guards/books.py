"""Lesson 3: the guard's books: what one result brought.

Every result is read once, after its call ran, and written into the guard's memory (state.py): its answer
without metadata and without the call's own echoes (results.py, arguments.py), the values no earlier result
held (news), whether it failed and how (responses.py), and whether it may have changed state, which opens a
new epoch for the reads it can affect. The detectors judge from these books alone. A write that took is news;
so is a re-read whose answer moved (a poll), and the first failure of a kind (failures.py). The same answer to an
idempotent write, a deterministic failure on argument after argument (guessing), or a call of unknown effect naming a
thing by an id never given that gets its tool's words for the last such guess are not (not ids a listing gave).
"""
from __future__ import annotations

from typing import Any, Optional
import re

from ...core.messages import ToolCall, ToolMessage
from ...core.toolresult import read_body
from .answers import given_alike
from .arguments import argument_leaves, subject_of, without_echoes
from .asking import differences, given_before, told_apart
from .effects import resource_changed
from .failures import alike, failure
from .metadata import holds_rows, is_moment_name, moved_alone, positions
from .responses import (owned_moments, parse_result, reports, says_final, still_to_come, timed_out, transient,
                        without_call_counts)
from .relearned import failed_alike, read_again
from .results import ResultReader, found_nothing, leaf_values
from .state import GuardedCall, Memory
from .wording import says_nothing
from .words import words


def book(m: Memory, reader: ResultReader, a: GuardedCall, result: ToolMessage, reached: bool) -> Optional[str]:
    """Record what `a`'s result brought; returns the answer the same call got last time, if it stands.
    `reached`: the tool itself answered (a call refused for its form before it ran says nothing about
    the world, so it is never a guess)."""
    info = m.info(a.call.name)
    a.ran, a.told_from = True, m.told
    m.ran.append(a)
    ok, payload = parse_result(result.content)
    ok = ok and not result.is_error
    content = without_echoes(payload, a.arguments, _spelled(a.call)) if ok else payload
    a.echoed = ok and content != payload
    a.quoted = a.echoed and a.writes and _quotes_wording(payload, a)
    if ok:  # a member that equalled the call's number last time and does again, the words unchanged, counts calls
        run = m.tool_runs[a.call.name] = m.tool_runs.get(a.call.name, 0) + 1
        sent = str([v for _, v in argument_leaves(a.arguments) if not isinstance(v, (int, float)) or isinstance(v, bool)])
        same = m.words.get(a.call.name) == sent
        m.words[a.call.name] = sent
        content, m.counting[a.call.name] = without_call_counts(
            content, run, m.counting.get(a.call.name, set()) if same else set())
    owned = m.owned.get(a.call.name, frozenset())
    moments: dict[str, Any] = {}
    declared = info.metadata | m.own.get(a.call.name, frozenset())
    a.result, values = reader.read(ok, content, declared, ok, owned, moments)
    seen_before = m.moments.get(a.action)
    if ok:
        m.moments[a.action] = (a.result, moments)
    learned = owned_moments(seen_before, (a.result, moments)) - owned if ok and seen_before else set()
    if learned:  # the resource's own moments: part of its answer from now on, this one included
        owned = m.owned[a.call.name] = owned | learned
    # a date-time known by its form alone is content until it moved alone (a meeting's `start`, not a report's
    # `generated`); then the earlier answer, read without it, is what this one is compared with
    if ok and seen_before and seen_before[0] == a.result and a.action in m.last_result and (moved := {
            k for k in moments if not is_moment_name(k) and seen_before[1].get(k, moments[k]) != moments[k]}):
        m.alone[a.call.name] = m.alone.get(a.call.name, frozenset()) | moved
        m.last_result[a.action] = (*m.last_result[a.action][:2], a.result)
    by_form = {k for k in moments if not is_moment_name(k)} - m.alone.get(a.call.name, frozenset())
    if learned or by_form:
        a.result, values = reader.read(ok, content, declared, ok, owned | by_form)
    # a member that moved alone across identical calls as a request's own does is the response's, whatever its name
    if ok and seen_before and a.action in m.last_result and (earlier := _last_content(m, a)) is not None and (
            own := moved_alone(earlier, content, declared, lambda v: not leaf_values(v) <= m.seen,
                               m.turned.setdefault(a.action, {}))):
        m.own[a.call.name] = m.own.get(a.call.name, frozenset()) | own
        declared |= own
        a.result, values = reader.read(ok, content, declared, ok, owned | by_form)
        read_again(m, reader, a, declared)
    # a number that moved back and forth beside an otherwise equal answer of the same tool to reworded calls is the
    # response's (a timing), not the answer; a token is not learned so (two records differing only in their ids)
    if ok and (other := _last_page(m, a)) is not None and not _last_content(m, a) and (own := moved_alone(
            other, content, declared, lambda v: False, m.turned.setdefault(f"{a.call.name}()", {}))):
        m.own[a.call.name] = m.own.get(a.call.name, frozenset()) | own
        declared |= own
        a.result, values = reader.read(ok, content, declared, ok, owned | by_form)
        read_again(m, reader, a, declared)
    # a page followed by the cursor the last page gave: the members that moved beside it are positions, not answers,
    # and the cursor it sent says where in the list, not what about, as a page number does (`topic`)
    if ok and (page := _last_page(m, a)) is not None:
        own, followed = positions(page, content, [v for _, v in argument_leaves(a.arguments)], info.metadata)
        if followed:
            a.followed, a.topic = frozenset(followed), subject_of(_without(a.arguments, followed), False)
        if own - declared:
            m.own[a.call.name] = m.own.get(a.call.name, frozenset()) | own
            declared |= own
            a.result, values = reader.read(ok, content, declared, ok, owned | by_form)
    a.failed, a.empty = not ok, not values or found_nothing(content)
    # one sentence around each made-up name says as little of it as an empty answer (compared, it is still an answer)
    templated = ok and (not a.writes or info.unknown and _guessed(m, a)) and _templated(m, a, content)
    said = not a.empty and not templated
    a.lists = ok and holds_rows(content)
    a.to_come = ok and still_to_come(content, is_moment_name)
    a.silent = ok and content in (None, "")
    a.blank = ok and says_nothing(content)
    a.reports = ok and reports(content)
    values = values if said else set()  # zeros that say "nothing found" are no news
    body = None if ok else (read_body(result.content) or {"message": result.content})  # plain-text errors too
    a.transient = transient(body)  # passes by itself: sent again, it is a retry (responses.py)
    a.unsettled = a.writes and timed_out(body)  # it may have acted: a read after it checks (state.py)
    a.final = says_final(body)  # says it will not pass: sent again unchanged, it is the repeat
    a.error_class = failure(body, a.arguments, _spelled(a.call), declared) if body else None  # its kind (failures.py)
    if ok and (given_so := given_alike(m, a, payload)) is not None:  # the same answer as the tool gave it (answers.py)
        a.result, values = given_so.result, set()
    last = m.last_result.get(a.action)  # (the epoch once it ran, heard, its answer)
    before = last[2] if last and last[:2] == (a.epoch, a.heard) else None  # nothing else changed state since
    fresh = values - m.seen
    a.showed, a.content, a.answer = bool(ok and fresh), content if ok else None, payload
    a.taught = a.showed and not a.writes
    m.learned += a.taught  # a read that showed something no result had shown
    m.now.shown += len(fresh) if ok else 0
    given = m.given.setdefault(a.action, set())
    # an idempotent write that answers as it did, nothing else changed since, changed nothing (no new epoch)
    took = a.writes and not (info.idempotent and before is not None and before == a.result)
    # a call of unknown effect whose answer was only its own request sent back, or a guess's template, took nothing
    took = took and not (info.unknown and (a.blank and not says_nothing(payload) or templated))
    changed = ok and took or not ok and resource_changed(body)
    # news for every repeat: an answer this call never gave before (a poll that moved, even to a value seen elsewhere)
    a.brought = a.result not in given and (changed or bool(given))
    m.news += a.brought
    given.add(a.result)
    a.news, a.learned = m.news, m.learned  # its own answer is not "in between" it and its next run
    if ok:
        if before is not None:  # the same call, asked again: did its answer move? (metadata aside)
            (m.changing.add if before != a.result else m.changing.discard)(a.action)
        if said or took:  # an answer about a new subject, or a write that took, is news
            fresh.add(f"asked {a.subject}" if not a.writes else f"wrote {a.action} {m.epoch}")
        if took:  # it may have changed what every read would say
            m.epoch += 1
        m.last_result[a.action] = (m.epoch, a.heard, a.result)  # a write's own change counted in
        key = m.answer_key(a)
        if key is not None:
            m.answers.setdefault(key, []).append(a)
    elif resource_changed(body):  # 409, 412, a new ETag: what was read is stale
        m.epoch += 1
    elif reached and not a.transient:  # a deterministic failure: news the first time, a guess after
        failed_alike(m, a)
        kind = next((k for tool, k in m.errors if tool == a.call.name and alike(k, a.error_class)), a.error_class)
        tried = m.errors.setdefault((a.call.name, kind), set())
        if not tried:  # a new kind of failure says something new, as a first answer does (answers.py)
            fresh.add(f"error {a.call.name} {kind}")
            m.told += 1
        m.now.counts = m.now.counts or a.action not in tried
        tried.add(a.action)
    fresh -= m.seen
    reply = m.reply_key(a)
    if reply is not None:  # the same answer to the same question, nothing new said since the last one?
        calls, told, last = m.replies.get(reply, (0, -1, None))
        a.alike, a.alike_before = (calls + 1, last) if told == m.told else (1, None)
        m.told += not calls or bool(values & fresh)
        m.replies[reply] = (a.alike, m.told, a)
    a.reply, a.told_to = reply, m.told
    m.seen |= fresh
    m.now.new += len(fresh)
    m.now.counts = m.now.counts or ok
    return before


_WORDS = re.compile(r"\w+")


def _templated(m: Memory, a: GuardedCall, content: Any) -> bool:
    """Does the read `a` get, the words either call sent left out, word for word the answer its tool gave the call
    before it, about another subject the agent was not given (`<path> does not exist` for one guessed path, then for
    the next)? The answer says nothing of its own subject, as an empty one does. Not two things the user listed or
    an answer showed, each answered alike (hosts db-01 to db-04 the user listed, each "not reachable": asking.py)."""
    last = next((x for x in reversed(m.attempts[:a.index]) if x.ran and x.call.name == a.call.name), None)
    if last is None or last.failed or last.action == a.action or not isinstance(content, str) \
            or not isinstance(last.content, str):  # a structured record holding the call's id is the thing found
        return False
    sent = {w for x in (last, a) for _, v in argument_leaves(x.arguments) for w in _WORDS.findall(str(v).casefold())}
    was, now = ([w for w in _WORDS.findall(str(c).casefold()) if w not in sent] for c in (last.content, content))
    # answers alike word for word, quoting nothing of their calls, are the same answer (answers.py), not a template
    return bool(now) and was == now and (a.echoed or last.content != content) \
        and not told_apart(last, a, given_before(m, a))


def _guessed(m: Memory, a: GuardedCall) -> bool:
    """Does `a` differ from its tool's last call only in one-word values (ids, keys) the agent was never given, by
    the user or an answer? Not text it wrote (an edit's new lines), nor a thing a listing or the user named."""
    last = next((x for x in reversed(m.attempts[:a.index]) if x.ran and x.call.name == a.call.name), None)
    pairs = differences(last, a) if last is not None else []
    known = given_before(m, a).words if pairs else set()
    return bool(pairs) and all(len(w := _WORDS.findall(v.casefold())) == 1 and w[0] not in known for _, v in pairs)


def _last_content(m: Memory, a: GuardedCall) -> Any:
    """What the same call answered last time, echoes aside, if it succeeded."""
    earlier = [x for x in m.by_action.get(a.action, []) if x is not a and x.ran and not x.failed]
    return earlier[-1].content if earlier else None


def _last_page(m: Memory, a: GuardedCall) -> Any:
    """What the last successful run of `a`'s tool answered, echoes aside, when it was another call (a page before)."""
    earlier = [x for x in m.ran if x is not a and x.call.name == a.call.name and x.ran and not x.failed]
    return earlier[-1].content if earlier and earlier[-1].action != a.action else None


def _without(value: Any, dropped: set[str]) -> Any:
    """The arguments without the leaves in `dropped`, at any depth."""
    if isinstance(value, dict):
        return {k: _without(v, dropped) for k, v in value.items() if not (isinstance(v, str) and v in dropped)}
    if isinstance(value, list):
        return [_without(v, dropped) for v in value if not (isinstance(v, str) and v in dropped)]
    return value


def _quotes_wording(payload: Any, a: GuardedCall) -> bool:
    """Does the answer send back the call's wording (a text of two words or more), which it then acknowledges?"""
    said = [v for _, v in [*argument_leaves(a.arguments), *argument_leaves(_spelled(a.call))]
            if isinstance(v, str) and len(words(v)) >= 2]
    return bool(said) and without_echoes(payload, {"": said}) != payload


def _spelled(call: ToolCall) -> Any:
    """The call's arguments as the model wrote them (None: not a JSON object)."""
    try:
        return call.parsed_arguments()
    except ValueError:
        return None
