"""Red flag (written blind, from the exercise docstring alone): an unknown airport code falls through to case-folding and is kept lower-case."""
from __future__ import annotations

import datetime as dt
import json  # noqa: F401  (you will need it)
import unicodedata  # noqa: F401  (you will need it)
from typing import Any, Optional, Sequence

from reference import Episode, Message, StopReason, ToolCall, ToolMessage  # noqa: F401
from reference.core.airports import AirportCodeError, metro  # noqa: F401  (IATA code -> metro area, raises)
from reference.loops.hooks import RUN, Stop, Verdict  # noqa: F401

# ---------------------------------------------------------------- given: helpers you can use (no need to edit)
# From reference/parts/guards/given.py (read it there):
#   feedback(call, pattern, evidence, options, instruction, result=None, not_run=True): the intervention
#     answering `call` (error_type loop_detected, with evidence, options and an instruction)
#   airport_error(call, arguments, schema, messages): an actionable invalid_argument error for an
#     unknown airport code or one that is not where the user asked, else None
#   THRESHOLDS: per intent (an unknown intent gets "general"); STOP_REASONS: pattern -> StopReason
#   canonical_date(text, today): any unambiguous date spelling -> YYYY-MM-DD; an ambiguous one stays as written
from reference.parts.guards.given import (  # noqa: F401
    STOP_REASONS, THRESHOLDS, GuardState, airport_error, canonical_date, feedback)


# ---------------------------------------------------------------- step 1: canonical values

def _text(value: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", value).split())


def _number(text: str) -> Any:
    try:
        number = float(text)
    except ValueError:
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return int(number) if number.is_integer() else number


def canonical(value: Any, schema: Optional[dict], today: Optional[dt.date]) -> Any:
    """The value as the tool understands it, by its JSON schema (None: generic rules only)."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        out = {}
        for key, sub in props.items():
            if key not in value and isinstance(sub, dict) and "default" in sub:
                out[_text(key)] = canonical(sub["default"], sub, today)
        for key, item in value.items():
            out[_text(str(key))] = canonical(item, props.get(key), today)
        return out
    if isinstance(value, list):
        return [canonical(item, schema.get("items"), today) for item in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, str):
        return value
    text = _text(value)
    kind = schema.get("type")
    description = str(schema.get("description", "")).lower()
    if kind in ("number", "integer") or not schema:
        number = _number(text)
        if number is not None:
            return number
    if schema.get("format") == "iata":
        try:
            return metro(text)
        except AirportCodeError:
            pass  # not a code we know: fall through to the generic rules
    if schema.get("format") == "date" or "date" in description or "yyyy-mm-dd" in description:
        return canonical_date(text, today)
    if "case-insensitive" in description or "case insensitive" in description:
        return text.casefold()
    return text


# ---------------------------------------------------------------- step 2: the action fingerprint

def fingerprint(tool: str, arguments: dict, schema: Optional[dict], today: Optional[dt.date]) -> str:
    """'search_flights {"date":"2026-12-01","destination":"SHA","origin":"BJS"}' for PEK/SHA/tomorrow."""
    args = canonical(arguments, schema, today)
    return f"{tool} " + json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------- step 3: detectors

def repeated(history: Sequence[str], action: str, allowed_runs: int = 1) -> Optional[int]:
    """How often `action` was already attempted anywhere in the run, when that reaches `allowed_runs`."""
    count = sum(1 for earlier in history if earlier == action)
    return count if count >= allowed_runs else None


def alternation(history: Sequence[str], action: str) -> Optional[tuple[str, str]]:
    """(A, B) when the last four actions, this one included, go A-B-A-B."""
    last = list(history[-3:]) + [action]
    if len(last) < 4:
        return None
    a, b, c, d = last
    if a == c and b == d and a != b:
        return a, b
    return None


# ---------------------------------------------------------------- step 4: the guard

class LoopGuard(GuardState):
    def before_call(self, episode: Episode, call: ToolCall, messages: Sequence[Message]) -> Verdict:
        """RUN, or the verdict for a repeat, an alternation or a bad airport code (the call does not run)."""
        schema = self.schemas.get(call.name)
        today = episode.clock.today()
        try:
            arguments: Optional[dict] = call.parsed_arguments()
        except ValueError:
            arguments = None
        if isinstance(arguments, dict):
            action = fingerprint(call.name, arguments, schema, today)
        else:
            action = f"{call.name} " + " ".join(str(call.arguments).split())
        earlier = list(self.history)
        self.history.append(action)
        count = repeated(earlier, action, self.allowed_runs)
        if count is not None:
            return self.flag(call, "repeated_call",
                             f"This exact call ({action}) already came {count} time(s) in this run.",
                             "Do not repeat it: use the result you already have, or answer the user.")
        pair = alternation(earlier, action)
        if pair is not None:
            return self.flag(call, "alternation",
                             f"The last four calls went back and forth between {pair[0]} and {pair[1]}.",
                             "Stop alternating: decide from the results you have, or answer the user.")
        if isinstance(arguments, dict):
            error = airport_error(call, arguments, schema, messages)
            if error is not None:
                return Verdict("intervene", error)
        return RUN

    def flag(self, call: ToolCall, pattern: str, evidence: str, instruction: str) -> Verdict:
        """Intervene first; stop once the model has had its `interventions` warnings."""
        self.strikes += 1
        if self.strikes > self.interventions:
            return Verdict("stop", stop=Stop(STOP_REASONS[pattern], evidence))
        options = [name for name in self.tool_names if name != call.name]
        return Verdict("intervene", feedback(call, pattern, evidence, options, instruction))

    # given: the core decides everything before a call runs
    def after_result(self, episode: Episode, call: ToolCall, result: ToolMessage) -> ToolMessage:
        return result

    def after_step(self, episode: Episode, messages: Sequence[Message]) -> Optional[Stop]:
        return None


def make_guard(episode: Episode) -> LoopGuard:
    return LoopGuard(episode, **THRESHOLDS.get(episode.scenario.intent, THRESHOLDS["general"]))
