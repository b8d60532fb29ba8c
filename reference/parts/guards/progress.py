"""Principle 2, progress is new information: steps that bring nothing new are no progress, however different
their calls look.

New information is a value no result showed before (echoes of the call's own arguments and metadata
removed), an answer about a subject not asked about before, a write that succeeded, or a kind of error not
seen before (failures.py: its standard codes and its words beyond the call's own). Empty answers bring nothing;
the same kind of failure on argument after argument (guessing ids, 404 after 404) brings nothing; a changed
answer to the same call (polling) is new, flag or no flag. A step whose calls only failed for a transient reason
says nothing either way (the executor retries those). A read
about a thing the agent was given and had not asked about (a value the user or an earlier answer named, which
tells it apart from every earlier call of its tool: asking.py) is news even when its answer is empty or a failure
(a 404 on each link the user listed answers which are dead), a checklist worked through; names the agent made up, each answering empty, are still no progress, and so are names the agent
made up each answered in text by the sentence its tool gave the one before, the words either call sent aside
(`<path> does not exist`, books.py). Legitimate: nine repositories the user listed, each answering an empty list. The call whose answer listed a thing is not asked
again by a call about that thing (a listing of tables, then a count of one of them). A call asked before is asked
before however many calls ago: a batch of six reads reissued whole asks nothing new (legitimate: six incidents
the user listed, read in two batches). A new user message is a new question: the steps before it do not count
against the steps that answer it (a memory read once per turn, a query re-run because the user says the data moved).
Legitimate: an export started, then polled until its file is ready (`LEGITIMATE`). This rule and the same answer
(answers.py) both say "nothing new": this one counts the run's steps, whatever they asked; that one counts one
question's answers, so it can speak sooner (a second spelling of one search), and its reworded tally even when calls
in between brought news."""
from __future__ import annotations

from itertools import takewhile
from typing import Optional

from . import detectors, feedback
from .asking import given_before, listed_by, next_page, told_apart
from .feedback import Detection
from .state import Detector, GuardedCall, Memory, lists_things

LEGITIMATE = """
name: export-polled
title: An export started, then polled until its file is ready, as MCP servers define such tools
user: Export my tickets and give me the link.
tools:
  - {name: start_export, description: Start an export of the user's tickets; returns its id.,
     parameters: {type: object, properties: {}}, rules: [{result: {data: {export_id: ex-9}}}]}
  - name: get_export
    description: The state of an export.
    annotations: {readOnlyHint: true}
    parameters: {type: object, properties: {export_id: {type: string}}}
    rules:
      - results: [{data: {export_id: ex-9, state: running, progress: 10}},
                  {data: {export_id: ex-9, state: running, progress: 60}},
                  {data: {export_id: ex-9, state: done, url: "https://files.example/ex-9.csv"}}]
model:
  script:
    - call: {tool: start_export, args: {}}
    - call: {tool: get_export, args: {export_id: ex-9}}
    - call: {tool: get_export, args: {export_id: ex-9}}
    - call: {tool: get_export, args: {export_id: ex-9}}
    - answer: "Your export is ready: https://files.example/ex-9.csv"
expect: {completable: true, stop_reason: completed, oracle_model_calls: 5}
"""


def asks_given(m: Memory, a: GuardedCall) -> bool:
    """Does the read `a` ask about a thing the agent was given, not asked about before: a value the user (or an
    earlier answer) named, told apart by it from every earlier call of its tool (asking.py)? The nine repositories
    the user listed are nine questions, each answered even when its answer is empty or a failure on that thing."""
    if not a.ran or a.writes:
        return False
    given = given_before(m, a)
    # every earlier call, not only the latest few: a batch of six reissued whole asks again what its first asked
    earlier = [x for x in m.attempts[:a.index] if x.ran and x.call.name == a.call.name]
    if any(x.action == a.action for x in earlier):
        return False  # asked before, however many calls ago: the first answer was the news
    # the first call of a tool is told apart from nothing: its empty answer is only empty (a search for the
    # thing the user wants, not found under its first name)
    return bool(earlier) and all(told_apart(x, a, given) or listed_by(x, a) for x in earlier)


def _next_page(m: Memory, a: GuardedCall) -> bool:
    """Is `a` a page at the position its tool's last call reached, answered by how many it handled rather than by
    the things (asking.py, `next_page`)? Five windows of 100 rows each answered "100 rows" handled new rows."""
    last = next((x for x in reversed(m.attempts[:a.index]) if x.ran and x.call.name == a.call.name), None)
    return last is not None and a.ran and not a.failed and not lists_things(a.content) and next_page(last, a)


class NoProgress(Detector):
    """Steps that bring no new information are no progress, however different their calls look."""

    pattern = "no_progress"
    legitimate = LEGITIMATE

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        now = m.now
        if not (now.counts and not now.flagged and not now.new and now.turn and a.call.id == now.turn[-1]):
            return None  # judged once, on the step's last result
        run = detectors.no_progress([*m.new_per_step, now.new], m.thresholds.no_progress_steps)
        if not run or _next_page(m, a):
            return None
        # every call of those steps, not only the latest eight (`m.ran`): a batch of eight hides the step before
        steps = [x for x in takewhile(lambda x: x.step > now.number - run, reversed(m.attempts)) if x.ran]
        for back in range(run):  # newest first: a thing the user named, answered, is a checklist worked through
            if any(asks_given(m, x) for x in steps if x.step == now.number - back):
                run = back
                break
        if run < m.thresholds.no_progress_steps:
            return None
        recent = [x for x in m.ran if x.step > now.number - run]
        return feedback.no_progress(run, recent, list(m.tools))
