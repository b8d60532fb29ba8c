"""Lesson 3: the loop guard. Intervene first, then interrupt.

On the first detection the guard does not kill the run. The offending call is not executed (a
repeat, an alternation) or its result is wrapped (the same result again, no progress, which can only
be seen once the call has run), and the model gets a structured feedback message as that call's
tool result, so the history stays protocol-valid:

    {"ok": false, "error_type": "loop_detected", "pattern": "repeated_call",
     "evidence": "get_order_status(order_id=A1234) was already run once (step 1) ...",
     "options": ["answer the user now with ...", "call a different tool ...", ...],
     "instruction": "Do not call ... again. ... If this goes on, the run stops."}

Often that one message is enough: the model answers. If it persists (another detection after the
allowed interventions), the run stops with the pattern's stop reason. Thresholds are per intent.

    guard = LoopGuard.for_episode(episode)
    result = guarded_loop(episode, episode.limits.max_steps, Parts(guard=guard))
    guard.events  # what it saw and what it did, step by step
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ...core.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from ...core.result import StopReason
from ...loops.hooks import RUN, Trip, Verdict
from . import detectors
from .fingerprint import (airport_problems, fingerprint, is_empty, news, parse_result, raw_fingerprint,
                          result_fingerprint, show)

if TYPE_CHECKING:
    from ...harness.episode import Episode


@dataclass(frozen=True)
class Thresholds:
    allowed_runs: int = 1  # attempts of one non-volatile action before the next one is a repeat
    alternation_length: int = 4  # A-B-A-B
    same_result_actions: int = 2  # distinct calls of one tool returning one (non-empty) result
    no_progress_steps: int = 2  # steps in a row without a new entity or value
    interventions: int = 1  # feedback messages before the guard stops the run
    echo_similarity: float = 0.9  # the model's own text: supporting evidence, never a trigger alone


# Per intent (the scenario's `intent`; the same names as lesson 2's tiers in reference/budget.py).
# A lookup has one right call: a second identical one is already waste. Troubleshooting re-checks a
# metric or a log after something changed, so one identical re-run is allowed and no-progress waits a
# step longer; A-B-A-B is still caught there by the alternation detector, which does not wait for the
# repeat count. An unknown intent gets `general`.
THRESHOLDS: dict[str, Thresholds] = {
    "general": Thresholds(),
    "lookup": Thresholds(),
    "troubleshoot": Thresholds(allowed_runs=2, no_progress_steps=3),
}


def thresholds_for(intent: str) -> Thresholds:
    return THRESHOLDS.get(intent, THRESHOLDS["general"])


STOP_REASONS = {"repeated_call": StopReason.REPEATED_CALL, "alternation": StopReason.ALTERNATION,
                "same_result": StopReason.SAME_RESULT, "no_progress": StopReason.NO_PROGRESS}


@dataclass(frozen=True)
class ToolInfo:
    parameters: Mapping[str, Any]
    volatile: bool = False


@dataclass
class GuardedCall:
    """One tool call the model asked for, as the guard saw it."""

    step: int
    call: ToolCall
    action: str  # the fingerprint
    ran: bool = False
    result: Optional[str] = None  # the result fingerprint
    retryable_error: bool = False


@dataclass
class Detection:
    pattern: str
    evidence: str
    count: int
    options: list[str]
    instruction: str


@dataclass
class LoopGuard:
    tools: dict[str, ToolInfo]
    thresholds: Thresholds = Thresholds()
    attempts: list[GuardedCall] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # what the guard did, for traces
    strikes: int = 0
    _by_id: dict[str, GuardedCall] = field(default_factory=dict)
    _by_result: dict[str, list[str]] = field(default_factory=dict)  # "tool result-fp" -> actions
    _seen: set[str] = field(default_factory=set)
    _new_per_step: list[int] = field(default_factory=list)
    _step: int = 0
    _turn: tuple[str, ...] = ()
    _step_new: int = 0
    _step_counts: bool = False  # a call of this step succeeded: only such steps count for no-progress
    _step_flagged: bool = False
    _pending: Optional[tuple[StopReason, str]] = None

    @classmethod
    def for_episode(cls, episode: "Episode") -> "LoopGuard":
        tools = {t.name: ToolInfo(t.parameters, t.volatile) for t in episode.scenario.tools}
        for spec in episode.tools.specs:  # tools offered without a scenario definition
            tools.setdefault(spec.name, ToolInfo(spec.parameters))
        return cls(tools, thresholds_for(episode.scenario.intent))

    # -- hook 1: before each tool call ---------------------------------------------------------
    def before_call(self, episode: "Episode", call: ToolCall, messages: Sequence[Message]) -> "Verdict":
        self._enter_step(messages)
        info = self.tools.get(call.name)
        params = info.parameters if info else None
        try:
            args: Optional[dict[str, Any]] = call.parsed_arguments()
            action = fingerprint(call.name, args, params, episode.clock.today())
        except ValueError:  # not a JSON object: the executor answers it; we still count it
            args, action = None, raw_fingerprint(call.name, call.arguments)
        history = [a.action for a in self.attempts]
        attempt = GuardedCall(self._step, call, action)
        self.attempts.append(attempt)
        self._by_id[call.id] = attempt

        volatile = bool(info and info.volatile)  # polling: a repeat is fine while the result changes
        detection = None if volatile else (self._alternation(history, action, messages)
                                           or self._repeat(history, action, messages))
        if detection:
            return self._flag(detection, call, not_run=True)
        if args is not None and params:
            problems = airport_problems(args, params, _request(messages))
            if problems:
                self.events.append({"step": self._step, "pattern": "invalid_argument", "action": show(action),
                                    "did": "answered with an actionable error"})
                return Verdict("intervene", message=_invalid_argument(call, problems))
        return RUN

    # -- hook 2: after each tool result -------------------------------------------------------
    def after_result(self, episode: "Episode", call: ToolCall, result: ToolMessage) -> ToolMessage:
        attempt = self._by_id.get(call.id)
        if attempt is None:  # a call we never saw: leave it alone
            return result
        attempt.ran = True
        ok, payload = parse_result(result.content)
        ok = ok and not result.is_error
        attempt.result = result_fingerprint(result.content, result.is_error)
        attempt.retryable_error = not ok and _retryable(result.content)
        fresh = news(result.content, result.is_error, self._seen)
        self._seen |= fresh
        self._step_new += len(fresh)
        # A step in which every call failed is neither progress nor a stall: errors are answered by the
        # executor (actionable errors, retries, circuit breakers: lesson 5), and wrapping them here would
        # hide the very message the model needs. An identical failing call is still caught as a repeat.
        self._step_counts = self._step_counts or ok

        detection = None
        if ok and not is_empty(payload):  # empty results are no-progress's business, not this one's
            key = f"{call.name} {attempt.result}"
            actions = self._by_result.setdefault(key, [])
            if attempt.action not in actions:
                actions.append(attempt.action)
                same = detectors.same_result(self._by_result, key, self.thresholds.same_result_actions)
                if same:
                    detection = self._same_result(call.name, same)
        if (detection is None and self._step_counts and not self._step_flagged
                and self._turn and call.id == self._turn[-1]):
            run = detectors.no_progress([*self._new_per_step, self._step_new], self.thresholds.no_progress_steps)
            if run:
                detection = self._no_progress(run)
        if detection is None:
            return result
        flagged = self._flag(detection, call, not_run=False, original=result)
        if flagged.action == "stop":  # keep the real result in the history: a degraded answer can use it
            self._pending = flagged.trip
            return result
        return flagged.message

    # -- hook 3: after each step --------------------------------------------------------------
    def after_step(self, episode: "Episode", messages: Sequence[Message]) -> "Optional[Trip]":
        if self._step_counts:
            self._new_per_step.append(self._step_new)
        self._step_new, self._step_counts, self._step_flagged = 0, False, False
        trip, self._pending = self._pending, None
        return trip

    # -- the detectors, with evidence the model can read --------------------------------------
    def _repeat(self, history: list[str], action: str, messages: Sequence[Message]) -> Optional[Detection]:
        earlier = detectors.repeated_call(history, action, self.thresholds.allowed_runs)
        if earlier is None:
            return None
        before = [a for a in self.attempts[:-1] if a.action == action]
        if before and before[-1].retryable_error:
            return None  # retrying after a retryable error is not a loop (lesson 5 moves it into code)
        ran = [a for a in before if a.ran]
        spellings = list(dict.fromkeys(a.call.arguments for a in [*before, self.attempts[-1]]))
        evidence = (f"{show(action)} was already {'run' if ran else 'attempted'} {_times(earlier)} in this run "
                    f"(step {', '.join(str(a.step) for a in before)}); this is attempt {earlier + 1}.")
        if len(spellings) > 1:
            evidence += (" The arguments were written differently but mean the same call: "
                         + "; ".join(spellings[:4]) + ".")
        if ran:
            evidence += f" Its result is already in the conversation (step {ran[-1].step})."
        evidence += self._echo(messages)
        tool = action.split(" ", 1)[0]
        return Detection("repeated_call", evidence, earlier + 1, self._options(tool, ran=bool(ran)),
                         f"Do not call {show(action)} again. Answer the user now with what you have, or "
                         "take one of the options. If this goes on, the run stops.")

    def _alternation(self, history: list[str], action: str, messages: Sequence[Message]) -> Optional[Detection]:
        pair = detectors.alternation(history, action, self.thresholds.alternation_length)
        if pair is None:
            return None
        a, b = pair
        steps = [x.step for x in self.attempts[-self.thresholds.alternation_length:]]
        evidence = (f"You are going back and forth between {show(a)} and {show(b)}: "
                    f"{self.thresholds.alternation_length} calls in a row alternate between them "
                    f"(steps {', '.join(map(str, steps))})."
                    + self._echo(messages))
        return Detection("alternation", evidence, self.thresholds.alternation_length,
                         self._options(a.split(" ", 1)[0], b.split(" ", 1)[0], ran=True),
                         f"Stop alternating between {show(a).split('(')[0]} and {show(b).split('(')[0]}. The "
                         "results will not change by asking again: answer the user with what both results say, "
                         "or use a different tool. If this goes on, the run stops.")

    def _same_result(self, tool: str, actions: list[str]) -> Detection:
        evidence = (f"{len(actions)} different {tool} calls returned the same result: "
                    + "; ".join(show(a) for a in actions) + ". Rephrasing does not change what this tool knows.")
        return Detection("same_result", evidence, len(actions), self._options(tool, ran=True, rephrase=True),
                         f"Do not rephrase {tool} again. Answer the user from the result you have (it is "
                         "included here as `result`), or use a different tool. If this goes on, the run stops.")

    def _no_progress(self, run: int) -> Detection:
        recent = [a for a in self.attempts if a.ran and a.step > self._step - run]
        evidence = (f"The last {run} steps brought no new information (no new entity or value in any "
                    f"successful result): " + "; ".join(show(a.action) for a in recent[-4:]) + ".")
        tool = recent[-1].action.split(" ", 1)[0] if recent else ""
        return Detection("no_progress", evidence, run, self._options(tool, ran=False, rephrase=True),
                         "Stop repeating what brings nothing new. Tell the user what you tried and what you found "
                         "(or that nothing was found), and what they can do next. If this goes on, the run stops.")

    def _options(self, *tools: str, ran: bool, rephrase: bool = False) -> list[str]:
        others = [name for name in self.tools if name not in tools]
        options = [("answer the user now with the results you already have" if ran else
                    "answer the user now: say what you tried, what you found, and what they can do next")]
        if others:
            options.append("call a different tool that can answer this: " + ", ".join(others))
        options.append("change an argument that changes the question (not its spelling, case, key order, "
                       "date format or an equivalent code)" if not rephrase else
                       "ask the user to narrow or rephrase the request")
        return options

    def _echo(self, messages: Sequence[Message]) -> str:
        texts = [m.text for m in messages if isinstance(m, AssistantMessage)]
        score = detectors.echo(texts, self.thresholds.echo_similarity)
        return "" if score is None else f" Your last two messages are {score:.0%} alike."

    # -- intervene first, then interrupt ------------------------------------------------------
    def _flag(self, d: Detection, call: ToolCall, not_run: bool, original: Optional[ToolMessage] = None) -> "Verdict":
        self.strikes += 1
        self._step_flagged = True
        n = self.thresholds.interventions
        warned = f"{n} warning" + ("" if n == 1 else "s")
        stopping = self.strikes > self.thresholds.interventions
        body: dict[str, Any] = {"ok": False, "error_type": "loop_detected", "pattern": d.pattern,
                                "evidence": d.evidence, "count": d.count, "options": d.options,
                                "instruction": (f"The run is stopping: the loop went on after {warned}."
                                                if stopping else d.instruction),
                                "retryable": False, "not_run": not_run}
        if original is not None:
            ok, payload = parse_result(original.content)
            body["result"] = payload if ok and not original.is_error else None
        self.events.append({"step": self._step, "pattern": d.pattern, "action": show(self._by_id[call.id].action),
                            "did": "stopped the run" if stopping else
                            ("answered the call without running it" if not_run else "wrapped the result")})
        message = ToolMessage(call.id, json.dumps(body, ensure_ascii=False), is_error=True)
        if stopping:
            detail = f"{d.pattern}: the model carried on after {warned}. {d.evidence}"
            return Verdict("stop", message=message, trip=(STOP_REASONS[d.pattern], detail))
        return Verdict("intervene", message=message)

    def _enter_step(self, messages: Sequence[Message]) -> None:
        step = sum(1 for m in messages if isinstance(m, AssistantMessage))
        if step != self._step:
            self._step = step
            last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
            self._turn = tuple(c.id for c in last.tool_calls) if last else ()


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _request(messages: Sequence[Message]) -> str:
    return "\n".join(m.text for m in messages if isinstance(m, UserMessage))


def _retryable(content: str) -> bool:
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
        return False
    return isinstance(body, dict) and body.get("retryable") is True


def _invalid_argument(call: ToolCall, problems: list) -> ToolMessage:
    """An actionable error for arguments the guard will not send: what is wrong, what to use instead."""
    first = problems[0]
    body = {"ok": False, "error_type": "invalid_argument", "retryable": False,
            "argument": first.argument, "value": first.value,
            "message": " ".join(p.message for p in problems),
            "suggestions": sorted({s for p in problems for s in p.suggestions}),
            "instruction": f"Call {call.name} again with corrected {', '.join(p.argument for p in problems)}, "
                           "or ask the user which airport they mean. The call was not run."}
    return ToolMessage(call.id, json.dumps(body, ensure_ascii=False), is_error=True)
