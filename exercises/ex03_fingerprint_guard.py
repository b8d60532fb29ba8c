"""Exercise 3: a loop guard that intervenes before it interrupts.

The task
    Counting identical calls and killing the run at N is the answer that was never tested on a real
    loop. Models repeat themselves in disguise (keys reordered, "pek " for PEK, "tomorrow" for the
    date, PKX for PEK), go back and forth between two tools, rephrase a search that keeps returning
    the same thing, or keep getting empty results. And a model that is *told* it is looping may
    change course (the cooperative scenarios do): killing it outright ends the run with no answer. Write the guard of the guarded loop
    (reference/loops/guarded.py, protocol `Guard`): normalised fingerprints, the detectors, and
    "intervene first, then interrupt". The tests run it as

        guarded_loop(episode, max_steps, Parts(guard=make_guard(episode)))

What you are given
    The stub below: its sections (canonical values, fingerprints, detectors, LoopGuard) with their
    signatures, and the helpers of reference/parts/guards/given.py listed under "given" (feedback,
    airport_error, parse_result, leaf_values, canonical_date, without_metadata, identity, THRESHOLDS,
    STOP_REASONS), plus `metro(code)` for IATA metropolitan areas. The run's date is
    `episode.clock.today()`, never the machine's.

What the tests expect (tests/test_ex03_fingerprint_guard.py)
    - `canonical` and `fingerprint`: the same call in disguise gets the same fingerprint (keys
      reordered, NFKC and whitespace, PEK/PKX/BJS as one metro area, "tomorrow" or "Dec 1, 2026" as
      the date, "2" and 2 as one number, absent arguments as their default), and only by the tool's
      schema: a value is case-folded only where the schema says case-insensitive, an unknown airport
      code is never guessed, an ambiguous date keeps its spelling;
    - `result_fingerprint`: two results that say the same thing match, whatever their timestamps,
      request ids, etags or declared metadata;
    - `repeated` counts attempts anywhere in the run, not only the previous call; `alternation` sees
      A-B-A-B;
    - the guard sees repeats, alternation, the same result for a rephrased question and steps that
      bring no new value (empty results are not progress); a tool that may be polled is judged by its
      result, not flagged for repeating;
    - it intervenes first: a flagged call is not run and is answered with feedback (evidence, options,
      instruction); the first `interventions` lapses are warnings, the next stops the run with the
      pattern's stop reason. A lapse is a turn, not a call: a duplicate within one turn is answered
      without running it (even of a tool that may be polled), not counted as a strike. A turn is one
      model answer (one assistant message): a new answer is a new turn even if a faulty model reuses
      the call ids of the last one;
    - no false stops: paging, polling whose answer changes, new arguments, a batch lookup of several
      things with one answer each, the happy path.

    A false stop on legitimate work (a batch lookup, a poll whose answer changes) is as bad as a missed
    loop: the user gets no answer either way.

Check your work with `loopkit check ex03`; ask for a hint with `loopkit hint ex03`.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import unicodedata
from typing import Any, Optional, Sequence

from reference import AssistantMessage, Episode, Message, StopReason, ToolCall, ToolMessage, UserMessage  # noqa: F401
from reference.core.airports import AirportCodeError, metro  # noqa: F401  (IATA code -> metro area, raises)
from reference.loops.hooks import RUN, Stop, Verdict  # noqa: F401

# ---------------------------------------------------------------- given: helpers you can use (no need to edit)
# From reference/parts/guards/given.py (read it there):
#   feedback(call, pattern, evidence, options, instruction, result=None, not_run=True): the intervention
#     answering `call` (error_type loop_detected, with evidence, options and an instruction)
#   airport_error(call, arguments, schema, messages): an actionable invalid_argument error for an
#     unknown airport code or one that is not where the user asked, else None
#   parse_result(content) -> (ok, data) of a tool result; leaf_values(payload): every value in it
#   THRESHOLDS: per intent (an unknown intent gets "general"); STOP_REASONS: pattern -> StopReason;
#   RELATIVE_DAYS: today/tomorrow/yesterday -> days from the scenario's date
#   canonical_date(text, today): any unambiguous date spelling -> YYYY-MM-DD; an ambiguous one stays as written
#   without_metadata(payload, declared=()): the result without timestamps, request ids, etags, declared keys
#   identity(tool_info, canonical_arguments): a key for the arguments that name the thing asked about
from reference.parts.guards.given import (  # noqa: F401
    RELATIVE_DAYS, STOP_REASONS, THRESHOLDS, GuardState, airport_error, canonical_date, feedback, identity, leaf_values,
    parse_result, without_metadata)


# ---------------------------------------------------------------- step 1: canonical values

def canonical(value: Any, schema: Optional[dict], today: Optional[dt.date]) -> Any:
    """The value as the tool understands it, by its JSON schema (None: generic rules only)."""
    raise NotImplementedError("Exercise 3, step 1: canonical values")


# ---------------------------------------------------------------- step 2: fingerprints

def fingerprint(tool: str, arguments: dict, schema: Optional[dict], today: Optional[dt.date]) -> str:
    """'search_flights {"date":"2026-12-01","destination":"SHA","origin":"BJS"}' for PEK/SHA/tomorrow."""
    raise NotImplementedError("Exercise 3, step 2: the action fingerprint")


def result_fingerprint(content: str, metadata: Sequence[str] = ()) -> str:
    """A short hash of the canonical result without its metadata: equal when two results say the same thing."""
    raise NotImplementedError("Exercise 3, step 2: the result fingerprint")


# ---------------------------------------------------------------- step 3: detectors

def repeated(history: Sequence[str], action: str, allowed_runs: int = 1) -> Optional[int]:
    """How often `action` was already attempted anywhere in the run, when that reaches `allowed_runs`."""
    raise NotImplementedError("Exercise 3, step 3: the repeat detector")


def alternation(history: Sequence[str], action: str) -> Optional[tuple[str, str]]:
    """(A, B) when the last four actions, this one included, go A-B-A-B."""
    raise NotImplementedError("Exercise 3, step 3: the alternation detector")


# ---------------------------------------------------------------- step 4: the guard

class LoopGuard(GuardState):
    # GuardState (given) keeps the run's memory: self.schemas, self.tools (what each definition says: .polls,
    # .metadata), self.volatile (tools that may be polled), self.identities, self.turn_actions, the thresholds (self.allowed_runs,
    # self.same_result_actions, self.no_progress_steps, self.interventions), self.history (actions in order),
    # self.actions (call id -> action), self.by_result ((tool, result fingerprint) -> actions), self.seen,
    # self.quiet_steps, self.strikes, self.pending, and the turn's: self._turn (the assistant message whose calls
    # are being answered: a new message is a new turn, whatever its call ids), self._last_call_id (its last call),
    # _step_ok, _step_flagged, _step_new. Its _wrap(verdict, result) applies a verdict reached after the call ran.

    def before_call(self, episode: Episode, call: ToolCall, messages: Sequence[Message]) -> Verdict:
        raise NotImplementedError("Exercise 3, step 4: before_call")

    def after_result(self, episode: Episode, call: ToolCall, result: ToolMessage) -> ToolMessage:
        raise NotImplementedError("Exercise 3, step 4: after_result")

    def after_step(self, episode: Episode, messages: Sequence[Message]) -> Optional[Stop]:
        raise NotImplementedError("Exercise 3, step 4: after_step")

    def flag(self, call: ToolCall, pattern: str, evidence: str, instruction: str, result: Any = None,
             not_run: bool = True) -> Verdict:
        """Intervene first; stop once the model has had its `interventions` warnings."""
        raise NotImplementedError("Exercise 3, step 4: intervene first, then interrupt")


def make_guard(episode: Episode) -> LoopGuard:
    return LoopGuard(episode, **THRESHOLDS.get(episode.scenario.intent, THRESHOLDS["general"]))
