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
       guess); `format: date` or "YYYY-MM-DD" in the description -> today/tomorrow/yesterday resolved
       against `today`; "case-insensitive" in the description (and not "not case-insensitive") ->
       casefold. Nothing else is folded. `type: integer|number` -> "2", 2.0 and 2 are the number 2.
    2. `fingerprint(tool, arguments, schema, today)`: the tool name and the canonical arguments as
       JSON with sorted keys. `result_fingerprint(content)`: a short hash of the canonical result
       (use `parse_result`), so that two results that say the same thing get the same fingerprint.
    3. The detectors: `repeated(history, action, allowed_runs)` counts earlier attempts anywhere in
       the run (not only the previous call); `alternation(history, action)` sees A-B-A-B.
    4. `LoopGuard`:
       - `before_call`: fingerprint the call (its `today` is `episode.clock.today()`, the scenario's
         date, never the machine's); unless its tool is volatile (polling is legitimate),
         check alternation, then repeats: on a detection, `flag` it (the call is not run). Then the
         airport check (`airport_error`, given). Otherwise `RUN`.
       - `after_result`: a non-empty successful result that a *different* action of the same tool
         already returned is a same-result detection; after the last call of a step whose successful
         results brought no new value (`leaf_values` vs `self.seen`), for `no_progress_steps` steps in
         a row, it is a no-progress detection. Both can only be seen after the call ran: the feedback
         replaces the result (`_wrap`, given).
       - `after_step`: update the no-progress count and hand back a pending stop, if any.
       - `flag`: the first `interventions` detections answer with `feedback(...)` (evidence, options,
         instruction); the next one stops the run with the pattern's stop reason (`STOP_REASONS`).

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
from reference.parts.guards.fingerprint import airport_problems
from reference.loops.hooks import RUN, Verdict  # noqa: F401

RELATIVE_DAYS = {"today": 0, "tomorrow": 1, "yesterday": -1}

# Thresholds per intent (the scenario's `intent`); an unknown intent gets "general".
THRESHOLDS = {
    "general": {"allowed_runs": 1, "same_result_actions": 2, "no_progress_steps": 2, "interventions": 1},
    "lookup": {"allowed_runs": 1, "same_result_actions": 2, "no_progress_steps": 2, "interventions": 1},
    "troubleshoot": {"allowed_runs": 2, "same_result_actions": 2, "no_progress_steps": 3, "interventions": 1},
}

STOP_REASONS = {"repeated_call": StopReason.REPEATED_CALL, "alternation": StopReason.ALTERNATION,
                "same_result": StopReason.SAME_RESULT, "no_progress": StopReason.NO_PROGRESS}


# ---------------------------------------------------------------- given: helpers you can use (no need to edit)

def feedback(call: ToolCall, pattern: str, evidence: str, options: list[str], instruction: str,
             result: Any = None, not_run: bool = True) -> ToolMessage:
    """The intervention: answers `call` with evidence, options and an instruction (error_type loop_detected)."""
    body = {"ok": False, "error_type": "loop_detected", "pattern": pattern, "evidence": evidence,
            "options": options, "instruction": instruction, "retryable": False, "not_run": not_run}
    if result is not None:
        body["result"] = result
    return ToolMessage(call.id, json.dumps(body, ensure_ascii=False), is_error=True)


def airport_error(call: ToolCall, arguments: dict, schema: Optional[dict],
                  messages: Sequence[Message]) -> Optional[ToolMessage]:
    """An actionable invalid_argument error when an airport code is unknown or not where the user asked."""
    request = "\n".join(m.text for m in messages if isinstance(m, UserMessage))
    problems = airport_problems(arguments, schema, request)
    if not problems:
        return None
    body = {"ok": False, "error_type": "invalid_argument", "retryable": False, "argument": problems[0].argument,
            "message": " ".join(p.message for p in problems), "instruction": "Correct the code and call again."}
    return ToolMessage(call.id, json.dumps(body, ensure_ascii=False), is_error=True)


def parse_result(content: str) -> tuple[bool, Any]:
    """(ok, data) of a tool result in the kit's format; plain text counts as ok data."""
    try:
        body = json.loads(content)
    except ValueError:
        return True, content
    if isinstance(body, dict) and "ok" in body:
        return (True, body.get("data")) if body["ok"] else (False, body)
    return True, body


def leaf_values(payload: Any) -> set[str]:
    """Every entity or value in a result ({"results": []} has none)."""
    if isinstance(payload, dict):
        return set().union(set(), *(leaf_values(v) for v in payload.values()))
    if isinstance(payload, list):
        return set().union(set(), *(leaf_values(v) for v in payload))
    return set() if payload in (None, "") else {json.dumps(payload, ensure_ascii=False)}


# ---------------------------------------------------------------- step 1: canonical values

def canonical(value: Any, schema: Optional[dict], today: Optional[dt.date]) -> Any:
    """The value as the tool understands it, by its JSON schema (None: generic rules only)."""
    raise NotImplementedError("Exercise 3, step 1: canonical values")


# ---------------------------------------------------------------- step 2: fingerprints

def fingerprint(tool: str, arguments: dict, schema: Optional[dict], today: Optional[dt.date]) -> str:
    """'search_flights {"date":"2026-12-01","destination":"SHA","origin":"BJS"}' for PEK/SHA/tomorrow."""
    raise NotImplementedError("Exercise 3, step 2: the action fingerprint")


def result_fingerprint(content: str) -> str:
    """A short hash of the canonical result: equal when two results say the same thing."""
    raise NotImplementedError("Exercise 3, step 2: the result fingerprint")


# ---------------------------------------------------------------- step 3: detectors

def repeated(history: Sequence[str], action: str, allowed_runs: int = 1) -> Optional[int]:
    """How often `action` was already attempted anywhere in the run, when that reaches `allowed_runs`."""
    raise NotImplementedError("Exercise 3, step 3: the repeat detector")


def alternation(history: Sequence[str], action: str) -> Optional[tuple[str, str]]:
    """(A, B) when the last four actions, this one included, go A-B-A-B."""
    raise NotImplementedError("Exercise 3, step 3: the alternation detector")


# ---------------------------------------------------------------- step 4: the guard

class LoopGuard:
    def __init__(self, episode: Episode, allowed_runs: int = 1, same_result_actions: int = 2,
                 no_progress_steps: int = 2, interventions: int = 1):
        self.schemas = {t.name: t.parameters for t in episode.scenario.tools}
        self.volatile = {t.name for t in episode.scenario.tools if t.volatile}
        self.tool_names = [t.name for t in episode.scenario.tools]
        self.allowed_runs, self.same_result_actions = allowed_runs, same_result_actions
        self.no_progress_steps, self.interventions = no_progress_steps, interventions
        self.history: list[str] = []  # every action attempted, in order
        self.actions: dict[str, str] = {}  # call id -> action
        self.by_result: dict[tuple[str, str], list[str]] = {}  # (tool, result) -> actions that returned it
        self.seen: set[str] = set()  # every value any successful result has shown
        self.quiet_steps = 0  # steps in a row whose successful results brought nothing new
        self.strikes = 0
        self.pending: Optional[tuple[StopReason, str]] = None
        self._last_call_id = ""
        self._step_ok = self._step_flagged = False
        self._step_new = 0

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

    def _wrap(self, verdict: Verdict, result: ToolMessage) -> ToolMessage:
        """After a call ran: the feedback replaces its result, or (stopping) the real result stays."""
        if verdict.action == "stop":
            self.pending = verdict.trip
            return result
        assert verdict.message is not None
        return verdict.message


def make_guard(episode: Episode) -> LoopGuard:
    return LoopGuard(episode, **THRESHOLDS.get(episode.scenario.intent, THRESHOLDS["general"]))
