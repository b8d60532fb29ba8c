"""Principle 1, state epochs: the same call is a repeat once it gives the same answer with nothing in between
that could have changed it, and it is answered before it runs only when running it again would act twice or
its answer is known to be fixed.

It must not fire on:
- a re-read after a successful write, after an error saying the resource changed (409, 412, a new ETag), or
  after the user said something new: each opens a new state epoch (state.py, `still_stands`);
- a read asked again whose answer moved (a job polled until it is done, a log tailed while training runs):
  a second identical read runs, and only the same answer again is the repeat, which the guard puts in the
  answer's place, so the model never reads one answer twice; the third is answered before it runs;
- a retry: an idempotent call sent again after a timeout, or a failure that passes by itself (a refused
  connection, a timeout, a 429 or 503: `responses.transient`) sent again, three attempts in all as the OpenAI
  and Anthropic SDKs retry by default;
- a poll whose answers moved: patience grows with the movement it showed (`_patient`), so a status read a
  minute apart may answer alike on a long step, as many times in a row as it moved before, at most PATIENCE;
- a wait: a call that printed nothing (a `sleep`) repeats no answer, so its repeats are judged by the calls
  around it (`a_wait`);
- a retry the server asked for: an answer that is an HTTP 503 or 429 with Retry-After (RFC 9110, RFC 6585),
  waited out as told, sent again, three times in a row at most (`honoured_retry`).
- a read asked again in one parallel batch with a call never asked before (a types file read beside each
  handler under review): the batch is the unit that repeats, and an identical batch is still judged.

Which calls may act twice, which reads are fixed: the tool's definition (effects.py). A call whose
definition says nothing of its effects is judged by what it answered (`responses.reports`): an answer with
content marks a read, an acknowledgement (a new id, a success flag) a write. The writes that may still run
again are listed where they are decided (`_acts_on_news`); news that a write's own runs made is not news for
that write (own.py).
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Optional

from . import feedback
from .effects import ToolInfo
from .feedback import Detection
from .results import argument_leaves
from .own import learned_elsewhere, minted_only, only_own_news, same_acknowledgement
from .state import Detector, GuardedCall, Memory

LEGITIMATE = """
name: re-read-after-write
title: A document read, changed, and read again to check the change
user: Rename the doc d1 to Q3 plan and show me the result.
tools:
  - {name: get_doc, description: A document., parameters: {type: object, properties: {id: {type: string}}},
     rules: [{results: [{data: {id: d1, title: Draft}}, {data: {id: d1, title: Q3 plan}}]}]}
  - {name: update_doc, description: Change a document's title., parameters: {type: object, properties:
     {id: {type: string}, title: {type: string}}}, rules: [{result: {data: {updated: true}}}]}
model:
  script:
    - call: {tool: get_doc, args: {id: d1}}
    - call: {tool: update_doc, args: {id: d1, title: Q3 plan}}
    - call: {tool: get_doc, args: {id: d1}}
    - answer: The doc d1 is now called Q3 plan.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 4}
"""


# Attempts of one call that may each fail for a transient reason (`responses.transient`) before the next is a
# repeat: three in all, as the OpenAI and Anthropic SDKs retry by default (the first try and max_retries=2).
TRANSIENT_ATTEMPTS = 3


class RepeatedCall(Detector):
    """A call repeats an earlier one only if nothing between them brought new information."""

    pattern = "repeated_call"
    legitimate = LEGITIMATE

    def before_call(self, m: Memory, a: GuardedCall) -> Optional[Detection]:
        tools = list(m.tools)
        if a.action in m.now.actions:  # asked twice in one turn: the first call answers both
            return feedback.same_turn(a.action, m.now.number, tools)
        standing = [x for x in m.by_action.get(a.action, []) if x is not a and m.still_stands(x, a)]
        if not standing or len(standing) < m.thresholds.allowed_runs:
            return None
        last = standing[-1]
        if last.retryable_error and _transient_streak(standing) < TRANSIENT_ATTEMPTS:
            return None  # a transient failure sent once more: the executor's business (lesson 5)
        answered = any(x.ran and not x.failed for x in standing)
        if honoured_retry(m, a):
            return None  # HTTP 503 or 429 with Retry-After, waited out as told: a retry the server asked for
        if last.failed and _spelling(last.call) != _spelling(a.call) and not answered:
            return None  # the tool refused one spelling ("Dec 1, 2026"): the model is correcting it
        info = m.info(a.call.name)
        ran = [x for x in standing if x.ran and not x.failed]
        # its last two answers differ only by totals grown by what it sends: it adds, whatever its wording says
        adds = info.unknown and len(ran) >= 2 and same_acknowledgement(ran[-2], ran[-1])
        reads = not a.writes or (info.unknown and last.reports and not adds)  # what it answered tells what it did
        polled = not a.writes and info.moves_by_itself
        # the run moved since (for a write that acts twice, by more than what its own runs made): not stuck
        if m.news_between(last, a) and (info.idempotent or not only_own_news(m, last, a)):
            a.recheck = not a.writes and not polled  # a read runs once more: the same answer again is the repeat
            return None
        if last.failed:
            return feedback.repeated_call(a.action, len(standing), standing, a, tools, feedback.echo_of(m))
        if polled:
            return None  # a poll: its answers say whether it moves (progress.py), not its arguments
        if not a.writes and _beside_new_questions(m, a):
            return None  # a file read again beside each new one it is compared with: the batch is what repeats
        if a_wait(m, last, a):
            return None  # a call that answered nothing repeats no answer: the calls around it are judged (a wait)
        a.asked = m.user_spelled(a)
        if a.writes and info.unknown and not adds and m.polled_between(last, a):
            return None  # a wait between polls (a capped back-off's `sleep 240`): whether it is stuck is the poll's question
        if reads and not (_settled(m, standing) or (info.fixed and not _may_have_moved(m, a, last))):
            a.recheck = True  # its answer may have moved: run it, and judge it by the answer
            return None
        if not reads and _acts_on_news(m, a, last, info):
            return None
        return feedback.repeated_call(a.action, len(standing), standing, a, tools, feedback.echo_of(m))

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        if not (a.recheck and not a.failed):
            return None
        runs = [x for x in m.by_action[a.action] if x.ran and x is not a and m.still_stands(x, a)]
        # a call of unknown effect whose answer moved only by what it sends gave the same acknowledgement again
        again = bool(runs) and a.writes and m.info(a.call.name).unknown and same_acknowledgement(runs[-1], a)
        if before != a.result and not again and not (a.asked and any(x.result == a.result for x in runs)):
            return None  # a call the user asked for is stuck once it answers what it already answered
        if _patient(m, [*runs, a]):
            return None  # a call whose run kept moving may answer alike once more before it is stuck
        return feedback.repeated_call(a.action, len(runs), runs, a, list(m.tools), feedback.echo_of(m),
                                      ran_again=True)


def _settled(m: Memory, standing: list[GuardedCall]) -> bool:
    """Is the answer known not to move for now: the last two runs that still stand gave the same answer and the
    run's movement gives it no more patience, the last one failed (a failure stands until state changes), or
    none of the earlier attempts reached the tool (the guard answered them: a check of the arguments says the
    same thing every time)? Then the next identical call is answered before it runs."""
    ran = [x for x in standing if x.ran]
    if not ran or ran[-1].failed:
        return True
    return len(ran) >= 2 and ran[-1].result == ran[-2].result and not _patient(m, ran)


# The most answers alike in a row, after the first, that a call whose run kept moving may give before it is stuck.
PATIENCE = 2


def _patient(m: Memory, runs: list[GuardedCall]) -> bool:
    """Patience grows with movement: a call whose runs kept moving (its answer changed, or another call said
    something new between two of its runs: a job polled a minute apart, a probe while the server's log moves on)
    is not stuck at its first answer alike: its quiet repeats (in a row at the end: the same answer, nothing new
    between) may number as many as the moves before them, at most PATIENCE. A call that never moved gets none."""
    moves = quiet = 0
    for x, y in zip(runs, runs[1:]):
        if m.news_between(x, y) or x.result != y.result:
            moves, quiet = moves + 1, 0
        else:
            quiet += 1
    return 0 < quiet <= min(moves, PATIENCE)


def _may_have_moved(m: Memory, a: GuardedCall, last: GuardedCall) -> bool:
    """Why a read whose definition says it is fixed may still answer differently: its last re-run changed
    its answer, it asks about what the last write made or started, its last answer named a moment still to
    come (a pipeline's `finished_at: null`), or the user asked for it in these words."""
    return a.action in m.changing or m.about_the_last_write(a) or last.to_come or a.asked


def _acts_on_news(m: Memory, a: GuardedCall, last: GuardedCall, info: ToolInfo) -> bool:
    """May a call that may change state run again with nothing new in between? Only when a second one is
    not a duplicate of the first:
    - it is idempotent (MCP's idempotentHint, an HTTP PUT or DELETE): a retry after a timeout; it runs, and
      the same answer as its last run is the repeat (`recheck`);
    - the user asked for it in these words (a code span, a quotation: a flaky test run four times); it runs,
      and is stuck once it answers what it already answered since the user spoke;
    - it acts on a world outside the run (MCP's openWorldHint) after a read showed something new there that it
      did not make itself (the "More" link clicked after the snapshot shows the next rows; not the rows an
      insert sent, shown back by a find: own.py);
    - its definition states it acts on an open world, and its own last answer reported what no result had shown
      beyond an id it minted (a "Load more" click showing the next jobs, not a send's new message id); it runs,
      and the same answer again is the repeat;
    - it names no target of its own (no arguments, or only empty ones, booleans and choices its schema
      closes): it acts on what the tool carries, a cursor or a process (an editor's scroll), unless its
      definition says it is destructive; it runs and is judged by its answer.
    A record added again after a read of its trend, or a rerun triggered again between polls, is a duplicate."""
    if info.idempotent or a.asked:
        a.recheck = True
        return True
    if info.open_world and m.learned_between(last, a) and learned_elsewhere(m, last, a):
        return True  # a read that only showed what this write made reports its effect, not the world's
    if (info.annotations or {}).get("openWorldHint") is True and last.showed and last.reports \
            and not minted_only(m, last):
        a.recheck = True  # its own answer showed the world it acts on moving (the jobs a "Load more" added)
        return True
    if names_nothing(a.arguments, info.parameters) and (info.annotations or {}).get("destructiveHint") is not True:
        a.recheck = True
        return True
    return False


def names_nothing(arguments: Any, schema: Any) -> bool:
    """Does a call name no target of its own: every argument empty, a boolean, or a choice the schema closes
    (`enum`, `const`)? Such a call acts on what the tool itself carries (a cursor, a running process)."""
    if arguments is None:
        return False  # not a JSON object: nothing is known about it

    def walk(value: Any, sub: Any) -> bool:
        sub = sub if isinstance(sub, Mapping) else {}
        if isinstance(value, dict):
            props = sub.get("properties")
            props = props if isinstance(props, Mapping) else {}
            return all(walk(v, props.get(k)) for k, v in value.items())
        if isinstance(value, list):
            return all(walk(v, sub.get("items")) for v in value)
        if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
            return True
        return "enum" in sub or "const" in sub
    return walk(arguments, schema)


def printed_nothing(a: GuardedCall) -> bool:
    """Did a call succeed and answer no text at all: nothing, or texts all empty beside its numbers (a `sleep`'s
    empty output, its exit code and how long it took)? Such an answer repeats nothing."""
    if a.silent:
        return True
    if not a.ran or a.failed:
        return False
    texts = [v for _, v in argument_leaves(a.content) if isinstance(v, str)]
    return bool(texts) and not any(t.strip() for t in texts)


# An answer that is an HTTP response telling the client to come back later (RFC 9110: 503 Service Unavailable,
# RFC 6585: 429 Too Many Requests) and when (Retry-After in seconds), wherever the response text appears.
_STATUS = re.compile(r"^HTTP/[0-9.]+ +(503|429)\b", re.MULTILINE)
_RETRY_AFTER = re.compile(r"^retry-after: *([0-9]+) *$", re.IGNORECASE | re.MULTILINE)
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def retry_after(a: GuardedCall) -> Optional[float]:
    """The seconds an answer's HTTP 503 or 429 response asked the client to wait, if it asked."""
    for _, text in argument_leaves(a.content):
        if isinstance(text, str) and _STATUS.search(text) and (after := _RETRY_AFTER.search(text)):
            return float(after.group(1))
    return None


def _waited_as_told(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Was the call's last answer a 503 or 429 with Retry-After, and did a wait between it and now (a call that
    printed nothing) carry at least that many seconds? Then sending it again is the retry the server asked for."""
    seconds = retry_after(last) if last.ran and not last.failed else None
    if seconds is None:
        return False
    for x in m.attempts[last.index + 1:a.index]:
        said = [float(n) for _, v in argument_leaves(x.arguments) for n in _NUMBER.findall(str(v))]
        if printed_nothing(x) and any(n >= seconds for n in said):
            return True
    return False


def _beside_new_questions(m: Memory, a: GuardedCall) -> bool:
    """Is the read `a` asked in one batch with a call never asked before (the anchor file read beside each handler
    under review)? The batch is the unit that repeats: an identical batch is judged as before."""
    batch = [c for c in m.read.last_calls if c.id != a.call.id]
    if a.call.id not in m.read.last_turn or not batch:
        return False
    asked = {(x.call.name, _spelling(x.call)) for x in m.attempts if x.step < m.now.number}
    return any((c.name, _spelling(c)) not in asked for c in batch)


def a_wait(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Is the call a wait between other calls: its last run printed nothing, and a call that answered something ran
    since (a `sleep` between polls)? Its repeats are then judged by those calls' answers."""
    return printed_nothing(last) and any(x.ran and not printed_nothing(x) for x in m.attempts[last.index + 1:a.index])


def honoured_retry(m: Memory, a: GuardedCall) -> bool:
    """Is `a` a retry the server asked for: its latest runs, in a row, each answered 503 or 429 with Retry-After
    and each was waited out as told, no more of them than TRANSIENT_ATTEMPTS (the transient budget, counted in
    waits the server asked for)?"""
    streak, after = 0, a
    for x in reversed([x for x in m.by_action.get(a.action, []) if x.ran and x.index < a.index]):
        if not _waited_as_told(m, x, after):
            break
        streak, after = streak + 1, x
    return 0 < streak <= TRANSIENT_ATTEMPTS


def _spelling(call: Any) -> str:
    """A call's arguments as written, key order and whitespace aside."""
    try:
        return json.dumps(call.parsed_arguments(), sort_keys=True)
    except ValueError:
        return call.arguments


def _transient_streak(standing: list[GuardedCall]) -> int:
    """How many of the latest attempts, in a row, failed for a transient reason."""
    streak = 0
    for x in reversed(standing):
        if not (x.ran and x.retryable_error):
            break
        streak += 1
    return streak
