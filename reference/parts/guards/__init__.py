"""Lesson 3: loop guards that intervene before they interrupt, built on a few principles.

    registry.py     the detectors, in the order they are asked; one file each, with its rule in one
                    sentence and a legitimate case it must not fire on:
      repeats.py      state epochs: a call repeats another only if nothing in between could change its answer
      cycles.py       calls taking turns (A-B-A-B) with nothing in between that could change either answer
      rounds.py       a round (start, read, stop) again word for word but for the ids its own answers minted
      answers.py      the same answer to one question, asked again in other words or a third time
      progress.py     steps that bring no new information (empty answers, guessing), however different they look
      resent.py       a write that took, sent again in other words
      amended.py      a thing made, made again in a later turn to amend it
      landed.py       a write sent again after a read showed it landed
    asking.py       which calls ask one question: values the agent was given tell them apart; a back-off
    days.py         the days a user writes and the day an argument names, read as core/dates reads them
    counts.py       how many runs the user asked for: a number before the plural of what it counts
    counts_table.py the table counts.py reads (num2words' cardinals, CLDR's words), and its writer
    answered.py     what a call of unknown effect did, by its answer: read the thing it names, or made one
    own.py          what a write's own runs made: news the write itself made is no news for it
    wording.py      what a call says in words and what an answer says at all (the same-answer rule)
    words.py        what a word is: a run between white space, and UAX #29's words in scripts without spaces
    sql.py          which texts are SQL statements that change data or schema, or only query (sqlparse, ISO/IEC 9075)
    effects.py      may a call change state: MCP annotations, then the HTTP method, then the name (last resort)
    waits.py        retries within a budget (a failure that passes by itself, a Retry-After kept) and waits
    told_when.py    when a server told the client to come back: its Retry-After and its Date (RFC 9110)
    statuses.py     HTTP's error statuses by their reason phrases, as RFC 9110 and the RFCs before it write them
    responses.py    what belongs to the response: a failure by its protocol's rule, one that passes by itself
    metadata.py     what in a result is never its answer: request ids, timings, moments by form or name
    arguments.py    what a call's arguments say: their leaves, its subject, their echoes in its result
    results.py      what a result says: its fingerprint without metadata, its values, whether it found nothing
    books.py        what one result brought, written into the guard's memory: news, failures, state epochs
    relearned.py    what the guard learns late of a tool's answers (the response's members), read into its books
    failures.py     what kind of failure a call met: its standard codes and its words beyond the call's own
    state.py        what the guard remembers (Memory): each call, its state epoch, the transcript read so far
    quotes.py       what a user quotes: a code span, or a passage between any locale's quotation marks (CLDR)
    sent_back.py    what an answer gave to name a thing by: a value the tools take back (a later call, a parameter)
    detectors.py    the small pure functions the detectors share (counts, A-B-A-B windows, echo)
    thresholds.py   how much repetition passes, per intent
    feedback.py     what the model is told: evidence, options, the `loop_detected` body
    checks.py       arguments the guard will not send (airports, ambiguous dates), at any depth
    escalation.py   intervene first, then interrupt: when a warning becomes a stop
    guard.py        `LoopGuard.for_episode(episode)`: the `Guard` of reference/loops/hooks.py
    given.py, given_core.py, traits.py   what exercise 3 hands the learner (a simpler guard: annotations, then the HTTP
                          method, then words of the definition as a documented last resort)

"Is this the same call?" is answered once, for the whole kit, by reference/core/canonical.py.

    from reference.parts.guards import LoopGuard
    guarded_loop(episode, episode.limits.max_steps, Parts(guard=LoopGuard.for_episode(episode)))
"""
from ...core.canonical import canonical, fingerprint, show
from .guard import LoopGuard
from .results import result_fingerprint
from .thresholds import THRESHOLDS, Thresholds, thresholds_for

__all__ = ["LoopGuard", "THRESHOLDS", "Thresholds", "canonical", "fingerprint", "result_fingerprint", "show",
           "thresholds_for"]
