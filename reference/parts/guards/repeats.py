"""Principle 1, state epochs: the same call is a repeat once it gives the same answer with nothing in between
that could have changed it, and it is answered before it runs only when running it again would act twice or
its answers already repeated. `RepeatedCall.before_call` asks, in order (each rule with the legitimate case
it must not fire on):

1. One message asks once: a call asked twice in one assistant message is answered by the first.
2. A call repeats only one that still stands: a re-read after a successful write, after an error saying the
   resource changed (409, 412, a new ETag), or after the user said something new opens a new state epoch
   (state.py, `still_stands`), and so does news between the two (a poll elsewhere that moved).
3. A failure that passes by itself changed nothing: the same call may be sent again, three attempts in all, as
   the OpenAI and Anthropic SDKs retry by default, or three waits where the server said how long (a 503 or 429
   with Retry-After, waited out as told): the third send after two refused connections runs (`retrying`).
4. A failed call sent again runs once more, for a failure changed nothing and may not recur (a compute waking, a
   fix the user made and said so): the same failure again, with nothing new in between, is the repeat, put in the
   answer's place, and the next is answered before it runs; what the guard knows of a failure survives a user
   turn. Not for a transient failure (its retry budget, rule 3), a failure that says of itself it will not pass
   (its own `retryable: false`), nor a call that already answered (a respelling).
5. A failed call respelled is a new request, whatever the failure said: a spelling the tool refused, corrected
   ("Dec 1, 2026" to "2026-12-01"), runs; sent again as written, it is judged by rule 4.
6. A call that is not itself the question is judged by what is: a poll by its answers (progress.py), a wait
   (a call that printed nothing, or that says nothing of its effects while a poll runs between) by the calls
   around it, a read beside a new question in one parallel batch by the batch (`judged_elsewhere`).
7. A read asked again runs once more, whatever its annotations say (MCP calls them hints, not guaranteed to
   describe the tool), and only the same answer again is the repeat, put in the answer's place (`after_result`);
   the next is answered before it runs (`_settled`). It must not fire on a crawl's status polled while the job
   moves, though the server annotates it `openWorldHint: false`; patience grows with the movement its runs
   showed (`_patient`): a job polled until it is done, a log tailed while training runs. An answer moved by the
   agent's own act is not the world moving on: a call that may act, answered otherwise right after its first run
   took with nothing else new between (a release refused as one already made), earns no patience by that change;
   it must not fire on a scroll whose every run loads more, nor on a poll (spaced by a wait of its own, or answering
   only the state of what it names). A call that may act, answered anew only by the UUIDs the service minted for
   it (RFC 9562: a send's new message id, own.py's `minted_only`), gave the same answer; a read's new UUID is the
   world's (a message that arrived in an inbox).
   A call the agent spaced by a wait of its own (a command of its list is its shell's wait, or a call that printed
   nothing or only the time it spent ran since its last run: `sleep 30` between rounds of checks), or that answers only
   the state a write's answer gave the thing both name (`get-agent` answering the PREPARING that `prepare-agent`
   answered), is a poll, judged so whatever its tool declares (waits.py: a shell's annotations say what any of its
   calls may do, the wait before this one what it is for); it must not fire on a workflow run polled
   `sleep 10; gh run view ...` until it succeeds, nor on a service read `StartPending` twice behind `Start-Sleep 10`
   through a shell annotated destructive, and a spaced poll whose world moved between its last two runs (a server's
   log between two refused probes) is not settled. A state read asked again that the run paces, or
   whose answer moved, and that has not reached an end is a wait (`waits.awaiting`): it may answer alike as many
   times as the run affords (`Thresholds.poll_waits`): a container `starting` three times before `healthy`.
8. A call that may act runs again with nothing new in between only when a second is no duplicate
   (`_acts_on_news`): it is idempotent, the user asked for it in these words, or what it acts on moved without it:
   a call of a tool that declares nothing, whose answer made nothing, sets the state of what it names in a world
   MCP's defaults assume open: a read since that names that thing and shows something new lets it run once more
   (a light switched off again after a state read listed it still on), not a record added again after a read of
   its trend (`set_what_a_read_shows`); the next after the same read is the repeat.
9. As many identical runs as the user's latest message asked for, in a row or apart by reads of their own results,
   are no duplicate, a read or a write (`counted`, asked before rules 6 to 8): a flaky test run three times passing
   alike. Not a run sent again after another act of the agent's (a retry of what it fixes), nor one beyond the count.

Which calls may act twice: the tool's definition (effects.py). A call whose
definition says nothing of its effects is judged by what it answered (`responses.reports`): an answer with
content marks a read, and so does one that gives only the state of the thing the call names, nothing the call
did not send and nothing it minted (`reads_what_it_names`: a refund's status polled until it went through,
whatever language the tool is named in). An answer that minted a thing marks a write whatever the first word of
the tool's name or description (`minted_a_thing`: an acknowledgement of one record that sends back nothing the
call sent and holds an id no call sent and no answer before it showed, a room `check_in_guest` assigned); it must
not fire on a search answering the ids of its hits (a list) nor on a state read answering the id it was sent. An
acknowledgement that holds only a number or a success flag marks a write, unless the first word of the tool's
name or description reads. News that a write's own runs made is not news for that write (own.py).
"""
from __future__ import annotations

import json
from typing import Any, Optional

from . import feedback
from .effects import ToolInfo
from .feedback import Detection
from .counts import asked
from .arguments import names_nothing
from .answered import each_made, minted_a_thing, reads_what_it_names, set_what_a_read_shows
from .own import beyond_asked, learned_elsewhere, made_by, minted_only, only_own_news, same_acknowledgement, shows_own
from .sent_back import asks_back
from .state import Detector, GuardedCall, Memory
from .waits import a_wait, awaiting, not_yet, reads_a_state, retrying, spaced, waits_first

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


class RepeatedCall(Detector):
    """A call repeats an earlier one only if nothing between them brought new information."""

    pattern = "repeated_call"
    legitimate = LEGITIMATE

    def before_call(self, m: Memory, a: GuardedCall) -> Optional[Detection]:
        tools = list(m.tools)
        if a.action in m.now.actions:  # 1: asked twice in one message, the first call answers both
            return feedback.same_turn(a.action, m.now.number, tools)
        standing = [x for x in m.by_action.get(a.action, []) if x is not a and m.still_stands(x, a)]
        if not standing or len(standing) < m.thresholds.allowed_runs:
            return None  # 2: nothing it repeats still stands
        last, info = standing[-1], m.info(a.call.name)
        if retrying(m, a):
            return None  # 3: a failure that passes by itself, sent again within the retry budget
        answered = any(x.ran and not x.failed for x in standing)
        if last.failed and not (last.transient or last.final or answered or _failed_alike(m, standing)):
            a.recheck = True  # 4: a failure changed nothing and may not recur: it runs, judged by its answer
            return None
        if last.failed and not answered and _spelling(last.call) != _spelling(a.call):
            return None  # 5: the tool refused one spelling: the model is correcting it
        ran = [x for x in standing if x.ran and not x.failed]
        # its last two answers differ only by totals grown by what it sends: it adds, whatever its wording says
        adds = info.unknown and len(ran) >= 2 and same_acknowledgement(ran[-2], ran[-1], m)
        # what it answered tells what it did; a call the agent spaced by a wait of its own, or that answered only the
        # state a write's answer gave the thing it names, is a poll
        # an answer that minted a thing says the call writes, whatever its name's or its description's first word
        writes = a.writes or (info.unknown and any(minted_a_thing(m, x) for x in standing))
        reads = not writes or (info.unknown and (last.reports or reads_what_it_names(last) or spaced(m, last, a)
                                                 or reads_a_state(m, last) or awaiting(m, standing)) and not adds) \
            or waits_first(a)  # a wait before it says what this call is for; a declaration covers all the tool's calls
        idempotent = info.idempotent_by(writes)
        polled = not a.writes and info.moves_by_itself
        # 2: the run moved since (for a write that acts twice, by more than what its own runs made): not stuck
        if m.news_between(last, a) and (idempotent or not only_own_news(m, last, a)):
            a.recheck = not a.writes and not polled  # a read runs once more: the same answer again is the repeat
            return None
        if last.failed:
            return feedback.repeated_call(a.action, len(standing), standing, a, tools, feedback.echo_of(m))
        if counted(m, a, last):
            return None  # 9: as many identical runs as the user asked for are no duplicate
        if polled or judged_elsewhere(m, last, a, adds):
            return None  # 6: a poll, a wait or a batch: the answers around it say whether the run is stuck
        a.asked = m.user_spelled(a)
        if reads and not _settled(m, standing, spaced(m, last, a)):
            a.recheck = True  # 7: a read asked again runs once more, judged by its answer
            return None
        if not reads and _acts_on_news(m, a, last, info, idempotent):
            return None  # 8: a second is no duplicate
        return feedback.repeated_call(a.action, len(standing), standing, a, tools, feedback.echo_of(m))

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        if not a.recheck:
            return None
        runs = [x for x in m.by_action[a.action] if x.ran and x is not a and m.still_stands(x, a)]
        if a.failed:  # the same failure again, nothing new in between, is the repeat
            if runs and _failed_alike(m, [*runs, a]):
                return feedback.repeated_call(a.action, len(runs), runs, a, list(m.tools), feedback.echo_of(m),
                                              ran_again=True)
            return None
        # a call of unknown effect whose answer moved only by what it sends gave the same acknowledgement again
        again = bool(runs) and a.writes and m.info(a.call.name).unknown and same_acknowledgement(runs[-1], a, m)
        # a call that may act, answered anew only by the UUIDs the service minted for it (a new message id), gave
        # the same answer; a read's new UUID is the world's (a message that arrived in the inbox it lists)
        alike = before == a.result or (before is not None and a.writes and minted_only(m, a))
        if not alike and not again and not (a.asked and any(x.result == a.result for x in runs)):
            return None  # a call the user asked for is stuck once it answers what it already answered
        if _patient(m, [*runs, a]):
            return None  # a call whose run kept moving may answer alike once more before it is stuck
        return feedback.repeated_call(a.action, len(runs), runs, a, list(m.tools), feedback.echo_of(m),
                                      ran_again=True)


def counted(m: Memory, a: GuardedCall, last: GuardedCall) -> bool:
    """Is `a`, sent right after its run `last` or after reads asking back by or showing what the runs made, one of as
    many identical runs as the user's latest message asked for ("run it 3 times", counts.py)? A flaky test run three
    times, each read by its PID; a page posted again after the channel showed it unanswered. Not a run beyond the
    count, nor one after another act (`python3 life.py` after each `pip install numpy`: a retry of what it fixes)."""
    made = each_made(m, a)  # the count may name the things made past an adjective: "create 3 new tickets"
    own = made_by(m, a)  # only reads asking back or showing what the runs made between: their own results
    return all((not x.writes or m.info(x.call.name).unknown) and (asks_back(m, a, x) or shows_own(x, own))
               for x in m.attempts[last.index + 1:a.index]) and asked(m, made) > 1 and not beyond_asked(m, a, made)


def _failed_alike(m: Memory, runs: list[GuardedCall]) -> bool:
    """Did the last two of these runs fail with the same answer, with nothing new in between? Then the failure
    did not pass: sent again, it is the repeat."""
    ran = [x for x in runs if x.ran]
    return len(ran) >= 2 and ran[-1].failed and ran[-2].failed and ran[-1].result == ran[-2].result \
        and not m.news_between(ran[-2], ran[-1])


def _settled(m: Memory, standing: list[GuardedCall], spaced: bool = False) -> bool:
    """Is the answer known not to move for now: the last two runs that still stand gave the same answer and the
    run's movement gives it no more patience, the last one failed (a failure stands until state changes), or
    none of the earlier attempts reached the tool (the guard answered them: a check of the arguments says the
    same thing every time)? Then the next identical call is answered before it runs. Not a poll the agent spaces
    by a wait of its own (`spaced`) while the world moved between its last two runs: a probe of a server whose log
    moved on between two refusals is waiting for it, and runs once more."""
    ran = [x for x in standing if x.ran]
    if not ran or ran[-1].failed:
        return True
    if spaced and len(ran) >= 2 and m.news_between(ran[-2], ran[-1]):
        return False  # a poll the agent spaces by its own wait, while the world moved between its last two runs
    return len(ran) >= 2 and ran[-1].result == ran[-2].result and not _patient(m, ran)


# The most answers alike in a row, after the first, that a call whose run kept moving may give before it is stuck.
PATIENCE = 2  # swept 0-6: 0 flags 5 more legitimate field conversations; 1 to 6 move no figure


def _patient(m: Memory, runs: list[GuardedCall]) -> bool:
    """Patience grows with movement: a call whose runs kept moving (its answer changed, or another call said
    something new between two of its runs: a job polled a minute apart, a probe while the server's log moves on)
    is not stuck at its first answer alike: its quiet repeats (in a row at the end: the same answer, nothing new
    between) may number as many as the moves before them, at most PATIENCE. A call that never moved gets none,
    but a poll the agent spaces by its own wait whose answer says nothing has come yet (`waits.not_yet`: no run
    listed for a commit just pushed, a conclusion still empty) is waiting, as if it had moved once; so is one that
    waits before it asks right after an act of the agent's own (`_after_an_act`: the act takes time to take effect):
    a service read `StartPending` twice, ten seconds apart, after its restart, before `Running`. Not a poll that
    opened the run, answering `completed` again and again: nothing the agent did is on its way. The change right after
    a write's first run took is that write's doing, no movement (`_own_doing`): a release sent again, refused."""
    waiting = bool(runs) and waits_first(runs[-1])
    moves = int(waiting and not_yet(runs[-1].content))
    if awaiting(m, runs):  # a wait for a job's end: as many answers alike as the run affords
        moves = m.thresholds.poll_waits
    quiet = 0
    for x, y in zip(runs, runs[1:]):
        if (m.news_between(x, y) or x.result != y.result) and not (x is runs[0] and _own_doing(m, x, y)):
            moves, quiet = moves + 1, 0
        else:
            quiet += 1
    moves = max(moves, int(waiting and _after_an_act(m, runs)))
    return 0 < quiet <= min(moves, max(PATIENCE, m.thresholds.poll_waits if awaiting(m, runs) else 0))


def _own_doing(m: Memory, x: GuardedCall, y: GuardedCall) -> bool:
    """Did the answer move from `x` to `y` by the act of `x` alone: `x` may act and succeeded, its answer not that
    of a poll (a wait before it, or only the state of what it names: a refund's status read by a tool that declares
    nothing), and nothing but its own runs brought news between them?"""
    polls = waits_first(x) or (m.info(x.call.name).unknown and (reads_what_it_names(x) or reads_a_state(m, x)))
    return x.writes and not x.failed and not polls and only_own_news(m, x, y)


def _after_an_act(m: Memory, runs: list[GuardedCall]) -> bool:
    """Was the call just before the poll's first run another that may change state, succeeded, and answered otherwise
    (one answering what the poll answers asked the same question: `curl` before `sleep 2 && curl`)?"""
    before = m.attempts[runs[0].index - 1] if runs and runs[0].index > 0 else None
    return before is not None and before.ran and not before.failed and before.writes \
        and before.action != runs[0].action and before.result != runs[0].result


def _acts_on_news(m: Memory, a: GuardedCall, last: GuardedCall, info: ToolInfo, idempotent: bool) -> bool:
    """May a call that may change state run again with nothing new in between? Only when a second is no duplicate:
    it is idempotent (MCP's idempotentHint, an HTTP PUT or DELETE: a retry after a timeout), or the user asked for
    it in these words (a flaky test run four times): it runs, and the same answer again is the repeat; or what it
    acts on moved without it: a read showed something new in the open world it acts on (declared, or one a state
    it sets lies in: `set_what_a_read_shows`) that it did not make itself (the "More" link after a snapshot shows
    the next rows, not the rows an insert sent: own.py), its own
    last answer showed that world moving beyond an id it minted (a "Load more" showing the next jobs, not a send's
    new message id), or it names no target of its own and acts on what the tool carries (an editor's scroll),
    its definition not saying it is destructive. A record added again after a read of its trend is a duplicate."""
    if idempotent or a.asked:
        a.recheck = True
        return True
    if (info.open_world or set_what_a_read_shows(m, last, a)) and m.learned_between(last, a) \
            and learned_elsewhere(m, last, a):
        return True  # a read that only showed what this write made reports its effect, not the world's
    if (info.annotations or {}).get("openWorldHint") is True and last.showed and last.reports \
            and not minted_only(m, last):
        a.recheck = True  # its own answer showed the world it acts on moving (the jobs a "Load more" added)
        return True
    if names_nothing(a.arguments, info.parameters) and (info.annotations or {}).get("destructiveHint") is not True:
        a.recheck = True
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


def judged_elsewhere(m: Memory, last: GuardedCall, a: GuardedCall, adds: bool = False) -> bool:
    """Is `a` a call whose repeats the calls around it judge: a read asked beside a new question in one parallel
    batch (the batch is what repeats), or a wait (`a_wait`)?"""
    return (not a.writes and _beside_new_questions(m, a)) or a_wait(m, last, a, adds)


def _spelling(call: Any) -> str:
    """A call's arguments as written, key order and whitespace aside."""
    try:
        return json.dumps(call.parsed_arguments(), sort_keys=True)
    except ValueError:
        return call.arguments
