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

Steps
    1. `canonical(value, schema, today)`: the value as the tool understands it. Recurse into objects
       (by `properties`, filling absent arguments from their `default`) and arrays (by `items`).
       Strings: Unicode NFKC, trimmed, inner whitespace collapsed. Then, by the schema:
       `format: iata` -> `metro(code)` (PEK, PKX, BJS -> BJS; an unknown code stays upper-case, never a
       guess); `format: date` or "YYYY-MM-DD" in the description -> a date written as text goes through
       `canonical_date(text, today)` (given: "Dec 1, 2026", "tomorrow", "Tuesday" -> 2026-12-01 on a
       Monday 30 November; an ambiguous 01/02/2026 keeps its spelling, never merged with either reading);
       "case-insensitive" in the description (and not "not case-insensitive") -> casefold. Nothing else
       is folded. `type: integer|number` -> "2", 2.0 and 2 are the number 2.
    2. `fingerprint(tool, arguments, schema, today)`: the tool name and the canonical arguments as
       JSON with sorted keys. `result_fingerprint(content, metadata=())`: a short hash of the canonical
       result (use `parse_result`) without its metadata (`without_metadata`, given: timestamps, request
       ids, etags, and the tool's declared `metadata` keys), so that two results that say the same thing
       get the same fingerprint. A stuck job with a fresh `checked_at` is still stuck.
    3. The detectors: `repeated(history, action, allowed_runs)` counts earlier attempts anywhere in
       the run (not only the previous call); `alternation(history, action)` sees A-B-A-B.
    4. `LoopGuard`:
       - `before_call`: fingerprint the call (its `today` is `episode.clock.today()`, the scenario's
         date, never the machine's) and keep its identity arguments (`identity(self.tools.get(name),
         canonical arguments)`, given, in `self.identities`). The same action twice in ONE turn: `flag`
         the copy (not run). Unless its tool may be polled (`self.volatile`: the `volatile` flag, a
         description about a job or live state, or MCP annotations; real tools carry no kit-only flag),
         check alternation, then repeats: on a detection, `flag` it (the call is not run). Then the
         airport check (`airport_error`, given). Otherwise `RUN`.
       - `after_result`: a non-empty successful result that a *different* action of the same tool,
         asking about the same thing (same identity arguments), already returned is a same-result
         detection: four SKUs all `in_stock: true` are a batch lookup, not a rephrased search. After the
         last call of a step whose successful results brought no new value (`leaf_values` of the result
         without its metadata vs `self.seen`; an answer about a thing not asked about before counts as
         new), for `no_progress_steps` steps in a row, it is a no-progress detection. Both can only be
         seen after the call ran: the feedback replaces the result (`_wrap`, given).
       - `after_step`: update the no-progress count and hand back a pending stop, if any.
       - `flag`: the first `interventions` lapses answer with `feedback(...)` (evidence, options,
         instruction); the next one stops the run with the pattern's stop reason (`STOP_REASONS`). A lapse
         is a TURN with a detection, not a call: the calls of one assistant message were written before
         the model could read any warning, so a stop needs a detection in a later turn.

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
from reference.parts.guards.airports import AirportCodeError, metro  # noqa: F401  (IATA code -> metro area, raises)
from reference.loops.hooks import RUN, Verdict  # noqa: F401

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
    # self.quiet_steps, self.strikes, self.pending, and the step's self._last_call_id, _step_ok,
    # _step_flagged, _step_new. Its _wrap(verdict, result) applies a verdict reached after the call ran.

    def before_call(self, episode: Episode, call: ToolCall, messages: Sequence[Message]) -> Verdict:
        raise NotImplementedError("Exercise 3, step 4: before_call")

    def after_result(self, episode: Episode, call: ToolCall, result: ToolMessage) -> ToolMessage:
        raise NotImplementedError("Exercise 3, step 4: after_result")

    def after_step(self, episode: Episode, messages: Sequence[Message]) -> Optional[tuple[StopReason, str]]:
        raise NotImplementedError("Exercise 3, step 4: after_step")

    def flag(self, call: ToolCall, pattern: str, evidence: str, instruction: str, result: Any = None,
             not_run: bool = True) -> Verdict:
        """Intervene first; stop once the model has had its `interventions` warnings."""
        raise NotImplementedError("Exercise 3, step 4: intervene first, then interrupt")


def make_guard(episode: Episode) -> LoopGuard:
    return LoopGuard(episode, **THRESHOLDS.get(episode.scenario.intent, THRESHOLDS["general"]))
