"""Principle 2, progress is new information (the same answer): a question that gets the answer it already got, asked
again in other words or a third time with nothing new said in between, is asked in a loop, however its calls are
spelled.

Calls are compared by their answers, not by their arguments, echoes of the call's own arguments and metadata
removed: a build re-run with another checklist sent along, a log read through a wider window than the log is long,
a search reworded in two languages all get the answer they got before, and so ask one question again. That holds
whatever the call may change, since its answer shows that it changed nothing the answer can see. An answer the tool
gave, as it gave it, to another spelling of the question is that answer (books.py), though the echo left out of one
(the pair "USD/CNY" one call sent, spelled back to all) is not left out of the other; two answers that differ as the
tool gave them (two pairs, each named) stay two.
Two tallies of one rule, two detectors asked at two places of the registry (one slot for both changes which rule
speaks first: measured, it relabels stops and splits a run from its replay):
- asked in other words (`Rephrasing`, Memory.answer_key): two calls of one tool about one subject (its arguments
  without free wording), in one state epoch and one user turn, that get one answer with content. An answer that
  lists things of its own is compared across positions and epochs too: pages 2, 3 and 4 listing the same items
  asked one question whatever their page numbers say. The same list about another subject is another answer (two
  issues of one workflow offer the same transitions). Only a call sent after an answer came back can ask its
  question again: calls sent together in one step were all chosen before any of them was answered (four searches in
  one batch, two of which get one rate-limit text). Legitimate: four SKUs checked one by one, all in stock
  (`REWORDED`).
- asked a third time (`SameAnswer`, Memory.reply_key): three calls in a row that get one answer to one question:
  the tool, the user's turn, and for a read the identifiers it carries that the user wrote or an earlier answer
  showed (four files a search found are four questions). A call that may change state keeps its subject (nine
  updates of nine entities are nine), and when its answer only acknowledges, holding no content and no list
  (zeros, empty texts, `{"affected_rows": 10000}`) or quoting back the wording it was sent, all it was sent,
  quoting and spacing aside: an acknowledgement answers no question, so three `mv` commands are three moves,
  UPDATEs over six id ranges six acts and five notes each stored and quoted back ("Remembered: <note>") five (a
  search's empty list is an answer, and reworded searches answered by it ask one question; a write reworded and
  answered alike without its wording asks one). Any call in between that said
  something new (a first answer to its question, a value no result had shown, a first failure of its kind) restarts
  the count: a probe that fails while the server's log moves on is a wait; a cell rewritten between runs that each
  fail anew is debugged, however alike each rewrite is acknowledged. Answers that move by themselves (a job's state, a moment still to come, a
  call whose answer changed before), silent waits and the calls around a poll are watched, not looped on.
  Legitimate: four tickets a search found, closed one by one, each acknowledged alike (`LEGITIMATE`).
In both, calls told apart by a value the agent was given are different questions (asking.py): ten addresses of a
manifest the user pasted, four of which are not found, eight keys built from the tenants the user listed. And calls
in a row that differ only by a wait that grows, answered by a bare state ("not yet"), are a poll backing off, not a
question asked a third time. A failure is not an answer (repeats and guesses have their own rules)."""
from __future__ import annotations

from typing import Any, Optional

from . import feedback
from .feedback import Detection
from .asking import backing_off, paging, same_question
from .repeats import a_wait, counted
from .waits import awaiting, honoured_retry
from .state import Detector, GuardedCall, Memory, lists_things

LEGITIMATE = """
name: close-what-the-search-found
title: Four tickets a search found, closed one by one, each closing acknowledged alike
user: Close the stale tickets in the triage queue.
tools:
  - name: list_stale
    description: List the stale tickets of a queue.
    annotations: {readOnlyHint: true, openWorldHint: false}
    parameters: {type: object, properties: {queue: {type: string}}}
    rules: [{result: {data: {tickets: [T-101, T-117, T-123, T-140]}}}]
  - {name: close_ticket, description: Close a ticket., parameters: {type: object, properties: {id: {type: string},
     note: {type: string}}}, rules: [{result: {data: {closed: true}}}]}
model:
  script:
    - call: {tool: list_stale, args: {queue: triage}}
    - call: {tool: close_ticket, args: {id: T-101, note: closed as stale}}
    - call: {tool: close_ticket, args: {id: T-117, note: closed as stale}}
    - call: {tool: close_ticket, args: {id: T-123, note: closed as stale}}
    - call: {tool: close_ticket, args: {id: T-140, note: closed as stale}}
    - answer: All four stale tickets are closed.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 6}
"""


REWORDED = """
name: batch-stock-check
title: Four products checked one by one, all in stock
user: Are KB-101, KB-102, KB-103 and KB-104 in stock?
tools:
  - {name: check_stock, description: Whether a product is in stock., parameters: {type: object, properties:
     {sku: {type: string}}}, rules: [{result: {data: {in_stock: true}}}]}
model:
  script:
    - call: {tool: check_stock, args: {sku: KB-101}}
    - call: {tool: check_stock, args: {sku: KB-102}}
    - call: {tool: check_stock, args: {sku: KB-103}}
    - call: {tool: check_stock, args: {sku: KB-104}}
    - answer: All four are in stock.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 5}
"""


class Rephrasing(Detector):
    """Calls of one tool about one subject that get one answer with content are one question asked in other words."""

    pattern = "same_result"
    legitimate = REWORDED

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        key = m.answer_key(a)
        if key is None:
            return None
        # calls sent together in one step were all asked before any answer came back: none asks again
        calls = [x for x in m.answers.get(key, []) if x.step < a.step or x is a]
        if len({x.action for x in calls}) < m.thresholds.same_result_actions:
            return None
        if not lists_things(a.content) and paging([x for x in calls if x is not a], a):
            return None  # pages each at the position the one before reached, answered by a count, not the rows
        # calls told apart by a value the agent was given (ten addresses the user listed) ask ten questions
        actions = list(dict.fromkeys(x.action for x in same_question(m, calls, a)))
        if len(actions) < m.thresholds.same_result_actions or actions[-1] != a.action:
            return None
        return feedback.same_result(a.call.name, actions, list(m.tools))


class SameAnswer(Detector):
    """A question that keeps getting the answer it already got, with nothing new said in between, is asked in a loop however its calls are spelled."""

    pattern = "same_result"
    legitimate = LEGITIMATE

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        if a.alike < m.thresholds.same_answer_calls or a.alike_before is None or a.silent:
            return None  # a call that answers nothing at all (a sleep) is a wait, not a question
        if m.info(a.call.name).moves_by_itself or a.to_come or a.action in m.changing:
            return None  # an answer that moves by itself is watched, not looped on
        if m.polled_between(a.alike_before, a) or a_wait(m, a.alike_before, a) or honoured_retry(m, a):
            return None  # the calls around a poll set its pace: a wait, a back-off, a Retry-After honoured
        chain, x = [], a.alike_before
        while x is not None and len(chain) + 1 < a.alike:
            chain.insert(0, x)
            x = x.alike_before
        if a.alike - 1 <= m.thresholds.poll_waits and awaiting(m, _runs(m, a)):
            return None  # a wait for a job's end, within what the run affords
        if backing_off(chain, a):
            return None  # a poll that waits longer each time for a bare state to move
        if counted(m, a, a.alike_before):
            return None  # as many identical runs as the user asked for: a flaky test run three times, passing alike
        if paging(chain, a):
            return None  # pages, each at the position the answer before it gave: new rows, however alike
        asked = same_question(m, chain, a)  # a thing the user or an answer named is its own question
        if len(asked) + 1 < m.thresholds.same_answer_calls:
            return None
        return feedback.same_result(a.call.name, list(dict.fromkeys([*(x.action for x in asked), a.action])),
                                    list(m.tools))


def _runs(m: Memory, a: GuardedCall) -> list[GuardedCall]:
    """The runs of `a`'s call that still stand, `a` the last of them."""
    return [x for x in m.by_action.get(a.action, []) if x is a or (x.index < a.index and m.still_stands(x, a))]


def given_alike(m: Memory, a: GuardedCall, payload: Any) -> Optional[GuardedCall]:
    """The latest of the tool's recent runs that succeeded with `payload`, the answer the call `a` got, as the tool gave
    it: then `a` got that answer and shows nothing new, though the echo left out of one (the pair "USD/CNY" one call
    sent, spelled back to all) is not left out of the other. Two answers that differ as the tool gave them (two
    pairs, each named) stay two."""
    return next((x for x in reversed(m.ran) if x is not a and x.call.name == a.call.name and x.ran and not x.failed
                 and x.answer == payload), None)
