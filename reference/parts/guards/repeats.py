"""Principle 1, state epochs: a call repeats an earlier one only if nothing between them brought new
information.

What can change an answer: a call that succeeded and may change state (effects.py) opens a new epoch for
every read (conservatively: all of them); so does an error saying the resource changed (409, 412, a new
ETag); a new user message refreshes what reads knew. A call that failed changed nothing: the same call
after the same error is a repeat, whatever the user said since. A read of a world that moves by itself
(MCP's openWorldHint) is a poll, judged by what its answers bring (progress.py); a read whose answer
may have moved (it changed last time, it asks about what the last write made, started or acted on, or its
last answer named a moment still to come, a pipeline's `finished_at: null`) runs once more, and the same
answer again is the repeat (a finished pipeline asked again is still caught before it runs). A call that names no target of its own (no
arguments, or only empty ones, booleans and choices the schema closes) can only act on what the tool
carries, a cursor or a running process, so repeating it is how it works: it runs, and is judged by its
answer (an editor's "scroll down" must not be stopped; the same empty answer twice is the repeat), unless
its definition says outright that it is destructive (MCP's destructiveHint: true). A call that failed for
a transient reason (`retryable: true`) may be sent again: three attempts in all, as the OpenAI and
Anthropic SDKs retry by default; a fourth after three transient failures in a row is a repeat.

A call that may change state is a duplicate when it comes again with nothing new in between, with four
exceptions, each judged by what the call answers instead. An idempotent call (MCP's idempotentHint, or an
HTTP PUT or DELETE) has no effect beyond its first, so sending it again after a timeout or a 503 is a
retry: it runs, and only the same answer as its last run, nothing else changed since, is the repeat (an
apply that timed out, then got a 503, then took, is left alone; a write that took, re-sent and answered
the same, is caught). A call on a world outside the run (MCP's openWorldHint) sent again after a read
showed something no result had shown acts on what it saw (a "More" link clicked after the snapshot shows
the next rows); a record added again after a read of the same tool without annotations stays a
duplicate. A call whose definition says nothing of its effects (no annotations, no HTTP method), repeated
while a poll runs again in between, paces that poll (a capped back-off's `sleep 240`); whether the wait is
stuck is the poll's question. One that answered nothing at all (a shell's silent `sleep 120`) paces any read
run again in between, annotated or not: it said nothing a loop could be stuck on. A call the definition says writes (a rerun triggered again between polls)
stays a duplicate. A call carrying a passage the user quoted
(a code span, a quotation) is what the user asked for in those words: it runs, and is stuck once it
answers what it already answered since the user spoke (a flaky test the user asked to run four times,
passing and failing, is left alone). Progress elsewhere counts too: when a call in between
answered with new values, differently from every earlier run of that call (a poll that moved, a wait
that let it move), the model is not stuck on this one; a call that may change state runs again, a read
runs once more and is judged by its answer. A cycle whose every answer repeats (read, refused edit,
read) brings nothing new and stays a repeat.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional

from . import feedback
from .feedback import Detection
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


# Attempts of one call that may each fail for a transient reason (`retryable: true`) before the next is a
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
        if last.failed and _spelling(last) != _spelling(a) and not answered:
            return None  # the tool refused one spelling ("Dec 1, 2026"): the model is correcting it
        polled = not a.writes and m.info(a.call.name).moves_by_itself
        if m.news_between(last, a):  # the run moved since: not stuck on this call
            a.recheck = not a.writes and not polled  # a read runs once more: the same answer again is the repeat
            return None
        if last.failed:
            return feedback.repeated_call(a.action, len(standing), standing, a, tools, feedback.echo_of(m))
        if polled:
            return None  # a poll: its answers say whether it moves (progress.py), not its arguments
        info = m.info(a.call.name)
        a.asked = m.user_spelled(a)
        if (not a.writes and (a.action in m.changing or m.about_the_last_write(a) or last.to_come)) \
                or (a.writes and info.idempotent) or a.asked:
            a.recheck = True  # its answer may have moved, it acts no more than once, or the user asked for it
            return None  # in these words: run it, and judge it by the answer
        if a.writes and ((info.open_world and m.learned_between(last, a))
                         or (info.source == "name" and m.polled_between(last, a))):
            return None  # acting on what a read just showed of a world outside (the page "More" loaded), or a wait
        if names_nothing(a.arguments, info.parameters) and (info.annotations or {}).get("destructiveHint") is not True:
            a.recheck = True  # it can only act on what the tool carries (a cursor, a process): judged by its answer
            return None
        return feedback.repeated_call(a.action, len(standing), standing, a, tools, feedback.echo_of(m))

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        if not (a.recheck and not a.failed):
            return None
        runs = [x for x in m.by_action[a.action] if x.ran and x is not a and m.still_stands(x, a)]
        if before != a.result and not (a.asked and any(x.result == a.result for x in runs)):
            return None  # a call the user asked for is stuck once it answers what it already answered
        return feedback.repeated_call(a.action, len(runs), runs, a, list(m.tools), feedback.echo_of(m),
                                      ran_again=True)


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


def _spelling(a: GuardedCall) -> str:
    """The arguments as written, key order and whitespace aside."""
    try:
        return json.dumps(a.call.parsed_arguments(), sort_keys=True)
    except ValueError:
        return a.call.arguments


def _transient_streak(standing: list[GuardedCall]) -> int:
    """How many of the latest attempts, in a row, failed for a transient reason."""
    streak = 0
    for x in reversed(standing):
        if not (x.ran and x.retryable_error):
            break
        streak += 1
    return streak
