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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ...core.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from ...core.result import StopReason
from ...core.toolresult import read_body, to_json
from ...loops.hooks import RUN, Trip, Verdict
from . import detectors, feedback
from .feedback import Detection
from .fingerprint import (airport_problems, fingerprint, is_empty, news, parse_result, raw_fingerprint,
                          result_fingerprint, show)
from .state import GuardedCall, Step

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
class LoopGuard:
    tools: dict[str, ToolInfo]
    thresholds: Thresholds = Thresholds()
    attempts: list[GuardedCall] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # what the guard did, for traces
    strikes: int = 0  # detections so far; the one after `thresholds.interventions` stops the run
    _by_id: dict[str, GuardedCall] = field(default_factory=dict)
    _by_result: dict[str, list[str]] = field(default_factory=dict)  # "tool result-fp" -> actions
    _seen: set[str] = field(default_factory=set)  # every value the run's results have shown
    _new_per_step: list[int] = field(default_factory=list)  # new values, per step that counts
    _now: Step = field(default_factory=Step)
    _pending: Optional[tuple[StopReason, str]] = None  # a stop decided after a result, reported after the step

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
        attempt = GuardedCall(self._now.number, call, action)
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
                self.events.append({"step": self._now.number, "pattern": "invalid_argument", "action": show(action),
                                    "did": "answered with an actionable error"})
                return Verdict("intervene", message=feedback.invalid_argument(call, problems))
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
        self._now.new += len(fresh)
        # A step in which every call failed is neither progress nor a stall: errors are answered by the
        # executor (actionable errors, retries, circuit breakers: lesson 5), and wrapping them here would
        # hide the very message the model needs. An identical failing call is still caught as a repeat.
        self._now.counts = self._now.counts or ok

        detection = None
        if ok and not is_empty(payload):  # empty results are no-progress's business, not this one's
            key = f"{call.name} {attempt.result}"
            actions = self._by_result.setdefault(key, [])
            if attempt.action not in actions:
                actions.append(attempt.action)
                same = detectors.same_result(self._by_result, key, self.thresholds.same_result_actions)
                if same:
                    detection = feedback.same_result(call.name, same, list(self.tools))
        if (detection is None and self._now.counts and not self._now.flagged
                and self._now.turn and call.id == self._now.turn[-1]):
            run = detectors.no_progress([*self._new_per_step, self._now.new], self.thresholds.no_progress_steps)
            if run:
                recent = [a for a in self.attempts if a.ran and a.step > self._now.number - run]
                detection = feedback.no_progress(run, recent, list(self.tools))
        if detection is None:
            return result
        flagged = self._flag(detection, call, not_run=False, original=result)
        if flagged.action == "stop":  # keep the real result in the history: a degraded answer can use it
            self._pending = flagged.trip
            return result
        return flagged.message

    # -- hook 3: after each step --------------------------------------------------------------
    def after_step(self, episode: "Episode", messages: Sequence[Message]) -> "Optional[Trip]":
        if self._now.counts:
            self._new_per_step.append(self._now.new)
        self._now.end()
        trip, self._pending = self._pending, None
        return trip

    # -- the detectors that run before a call (the others need its result) ------------------
    def _repeat(self, history: list[str], action: str, messages: Sequence[Message]) -> Optional[Detection]:
        earlier = detectors.repeated_call(history, action, self.thresholds.allowed_runs)
        if earlier is None:
            return None
        before = [a for a in self.attempts[:-1] if a.action == action]
        if before and before[-1].retryable_error:
            return None  # retrying after a retryable error is not a loop (lesson 5 moves it into code)
        return feedback.repeated_call(action, earlier, before, self.attempts[-1], list(self.tools),
                                      feedback.echo(messages, self.thresholds.echo_similarity))

    def _alternation(self, history: list[str], action: str, messages: Sequence[Message]) -> Optional[Detection]:
        length = self.thresholds.alternation_length
        pair = detectors.alternation(history, action, length)
        if pair is None:
            return None
        steps = [x.step for x in self.attempts[-length:]]
        return feedback.alternation(*pair, steps, length, list(self.tools),
                                    feedback.echo(messages, self.thresholds.echo_similarity))

    # -- intervene first, then interrupt ------------------------------------------------------
    def _flag(self, d: Detection, call: ToolCall, not_run: bool, original: Optional[ToolMessage] = None) -> "Verdict":
        self.strikes += 1
        self._now.flagged = True
        n = self.thresholds.interventions
        warned = f"{n} warning" + ("" if n == 1 else "s")
        stopping = self.strikes > self.thresholds.interventions
        body = feedback.intervention(d, not_run=not_run, stopping=(
            f"The run is stopping: the loop went on after {warned}." if stopping else None))
        if original is not None:
            ok, payload = parse_result(original.content)
            body["result"] = payload if ok and not original.is_error else None
        self.events.append({"step": self._now.number, "pattern": d.pattern,
                            "action": show(self._by_id[call.id].action),
                            "did": "stopped the run" if stopping else
                            ("answered the call without running it" if not_run else "wrapped the result")})
        message = ToolMessage(call.id, to_json(body), is_error=True)
        if stopping:
            # the detail is for the user and support: the evidence without the note addressed to the model
            evidence = d.evidence.replace(" Your last two messages are", " The model's last two messages were")
            detail = f"{d.pattern}: the model carried on after {warned}. {evidence}"
            return Verdict("stop", message=message, trip=(STOP_REASONS[d.pattern], detail))
        return Verdict("intervene", message=message)

    def _enter_step(self, messages: Sequence[Message]) -> None:
        step = sum(1 for m in messages if isinstance(m, AssistantMessage))
        if step != self._now.number:
            self._now.number = step
            last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
            self._now.turn = tuple(c.id for c in last.tool_calls) if last else ()


def _request(messages: Sequence[Message]) -> str:
    return "\n".join(m.text for m in messages if isinstance(m, UserMessage))


def _retryable(content: str) -> bool:
    body = read_body(content)
    return body is not None and body.get("retryable") is True
