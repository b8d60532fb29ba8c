"""Lesson 3: the loop guard. Intervene first, then interrupt.

On the first detection the guard does not kill the run. The offending call is not executed (a
repeat, an alternation) or its result is wrapped (the same result again, no progress, which can only
be seen once the call has run), and the model gets a structured feedback message as that call's
tool result, so the history stays protocol-valid:

    {"ok": false, "error_type": "loop_detected", "pattern": "repeated_call",
     "evidence": "get_order_status(order_id=A1234) was already run once (step 1) ...",
     "options": ["answer the user now with ...", "call a different tool ...", ...],
     "instruction": "Do not call ... again. ... If this goes on, the run stops."}

Often that one message is enough: the model answers. If it persists, the run stops with the pattern's
stop reason. Lapses are counted PER TURN, not per call: the calls of one assistant message were written
together, before the model could read any warning, so however many of them the guard catches they are
one lapse; a stop needs a detection in a later turn, after the model could have read the warning. A call
repeated inside one turn is answered without running it.

What is and is not a loop (traits.py, results.py): a repeat of a tool that may change runs and is judged
by its result (polling); different arguments returning one result is a rephrase only when the calls ask
about the same thing (identity arguments); timestamps and request ids are not news.

    guard = LoopGuard.for_episode(episode)
    result = guarded_loop(episode, episode.limits.max_steps, Parts(guard=guard))
    guard.events  # what it saw and what it did, step by step

The guard's work per call does not grow with the run: it reads only new messages, and every detector
looks at a bounded window or a dictionary (benchmarks/long_run.py).
"""
from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ...core.messages import Message, ToolCall, ToolMessage
from ...core.result import StopReason
from ...core.toolresult import read_body, to_json
from ...loops.hooks import RUN, Stop, Verdict
from . import detectors, feedback
from .checks import argument_problems
from .feedback import Detection
from ...core.canonical import action_of, canonical_arguments, raw_fingerprint, show
from .results import ResultReader, parse_result
from .state import GuardedCall, Step, Transcript
from .thresholds import STOP_REASONS, THRESHOLDS, Thresholds, thresholds_for
from .traits import ToolInfo, identity

if TYPE_CHECKING:
    from ...harness.episode import Episode

__all__ = ["LoopGuard", "STOP_REASONS", "THRESHOLDS", "Thresholds", "ToolInfo", "thresholds_for"]


@dataclass
class LoopGuard:
    tools: dict[str, ToolInfo]
    thresholds: Thresholds = Thresholds()
    attempts: list[GuardedCall] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # what the guard did, for traces
    strikes: int = 0  # turns with a detection so far; the one after `thresholds.interventions` stops the run
    _by_id: dict[str, GuardedCall] = field(default_factory=dict)
    _by_action: dict[str, list[GuardedCall]] = field(default_factory=dict)  # action -> its attempts, in order
    _identity: dict[str, str] = field(default_factory=dict)  # action -> its identity arguments
    _last_result: dict[str, str] = field(default_factory=dict)  # action -> its latest result fingerprint
    _changing: set[str] = field(default_factory=set)  # actions whose last re-run changed their result
    _by_result: dict[str, list[str]] = field(default_factory=dict)  # "tool result identity" -> actions
    _seen: set[str] = field(default_factory=set)  # every value the run's results have shown
    _recent: deque = field(default_factory=lambda: deque(maxlen=8))  # the latest actions, for A-B-A-B
    _ran: deque = field(default_factory=lambda: deque(maxlen=8))  # the latest calls that ran
    _new_per_step: deque = field(default_factory=lambda: deque(maxlen=16))  # new values, per step that counts
    _now: Step = field(default_factory=Step)
    _read: Transcript = field(default_factory=Transcript)
    _pending: Optional[Stop] = None  # a stop decided after a result, reported after the step
    _results: ResultReader = field(default_factory=ResultReader, repr=False, compare=False)  # reads each result

    @classmethod
    def for_episode(cls, episode: "Episode") -> "LoopGuard":
        tools = {t.name: ToolInfo(t.parameters, t.description, t.volatile, dict(t.annotations or {}),
                                  frozenset(t.metadata)) for t in episode.scenario.tools}
        for spec in episode.tools.specs:  # tools offered without a scenario definition
            tools.setdefault(spec.name, ToolInfo(spec.parameters, spec.description))
        return cls(tools, thresholds_for(episode.scenario.intent))

    # -- hook 1: before each tool call ---------------------------------------------------------
    def before_call(self, episode: "Episode", call: ToolCall, messages: Sequence[Message]) -> "Verdict":
        self._enter_step(messages)
        info = self.tools.get(call.name)
        params = info.parameters if info else None
        today = episode.clock.today()
        try:
            args: Optional[dict[str, Any]] = call.parsed_arguments()
            canonical_args = canonical_arguments(args, params, today)
            action = action_of(call.name, canonical_args)
            if action not in self._identity:
                self._identity[action] = identity(info, canonical_args)
        except ValueError:  # not a JSON object: the executor answers it; we still count it
            args, action = None, raw_fingerprint(call.name, call.arguments)
        earlier = self._by_action.setdefault(action, [])
        attempt = GuardedCall(self._now.number, call, action)
        twin = self._now.actions.get(action)
        if twin:
            detection = feedback.same_turn(action, self._by_id[twin].step, list(self.tools))
        elif not earlier and self.thresholds.allowed_runs > 0:
            detection = None  # a first attempt repeats nothing, and an A-B-A-B window holds its last action twice
        else:
            detection = self._alternation(list(self._recent), action, info) or self._repeat(earlier, attempt, info)
        self.attempts.append(attempt)
        self._by_id[call.id] = attempt
        earlier.append(attempt)
        self._recent.append(action)
        self._now.actions.setdefault(action, call.id)
        if detection:
            return self._flag(detection, call, not_run=True)
        if args is not None and params and info and info.checked:
            problems = argument_problems(args, params, self._read.request, today)
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
        info = self.tools.get(call.name)
        metadata = info.metadata if info else frozenset()
        attempt.ran = True
        self._ran.append(attempt)
        ok, payload = parse_result(result.content)
        ok = ok and not result.is_error
        # payload_fingerprint(ok, content) and, for a success, leaf_values(content), where content is
        # without_metadata(payload, metadata): in one walk (metadata is never news)
        attempt.result, values = self._results.read(ok, payload, metadata, values=ok)
        attempt.failed = not ok
        attempt.retryable_error = not ok and _retryable(result.content)
        before = self._last_result.get(attempt.action)
        if ok:
            self._last_result[attempt.action] = attempt.result
            if before is not None:  # a re-run: did the answer change? (metadata aside)
                (self._changing.add if before != attempt.result else self._changing.discard)(attempt.action)
        empty = not values
        fresh = values - self._seen
        if ok and not empty:  # a successful answer about a new thing is news, even if it says "true"
            asked = f"{call.name} {self._identity.get(attempt.action, '')}"
            if asked not in self._seen:
                fresh.add(asked)
        self._seen |= fresh
        self._now.new += len(fresh)
        # A step in which every call failed is neither progress nor a stall: errors are answered by the
        # executor (actionable errors, retries, circuit breakers: lesson 5), and wrapping them here would
        # hide the very message the model needs. An identical failing call is still caught as a repeat.
        self._now.counts = self._now.counts or ok

        detection = None
        if ok and attempt.recheck and before == attempt.result:  # asked again, answered the same way
            runs = self._by_action[attempt.action]
            detection = feedback.repeated_call(attempt.action, len(runs) - 1, runs[:-1], attempt,
                                               list(self.tools), self._echo(), ran_again=True)
        elif ok and not empty:  # empty results are no-progress's business, not this one's
            key = f"{call.name} {attempt.result} {self._identity.get(attempt.action, '')}"
            actions = self._by_result.setdefault(key, [])
            if attempt.action not in actions:
                actions.append(attempt.action)  # distinct actions: the detector is asked once there are enough
                same = len(actions) >= self.thresholds.same_result_actions and detectors.same_result(
                    {key: actions}, key, self.thresholds.same_result_actions)
                if same:
                    detection = feedback.same_result(call.name, same, list(self.tools))
        if (detection is None and self._now.counts and not self._now.flagged and not self._now.new  # news: progress
                and self._now.turn and call.id == self._now.turn[-1]):
            run = detectors.no_progress([*self._new_per_step, self._now.new], self.thresholds.no_progress_steps)
            if run:
                recent = [a for a in self._ran if a.step > self._now.number - run]
                detection = feedback.no_progress(run, recent, list(self.tools))
        if detection is None:
            return result
        flagged = self._flag(detection, call, not_run=False, original=result)
        if flagged.action == "stop":  # keep the real result in the history: a degraded answer can use it
            self._pending = flagged.stop
            return result
        assert flagged.message is not None
        return flagged.message

    # -- hook 3: after each step --------------------------------------------------------------
    def after_step(self, episode: "Episode", messages: Sequence[Message]) -> "Optional[Stop]":
        if self._now.counts:
            self._new_per_step.append(self._now.new)
        self._now.end()
        stop, self._pending = self._pending, None
        return stop

    # -- the detectors that run before a call (the others need its result) ------------------
    def _repeat(self, earlier: list[GuardedCall], attempt: GuardedCall, info: Optional[ToolInfo]) -> Optional[Detection]:
        action = attempt.action
        count = detectors.repeated_call([a.action for a in earlier[-self.thresholds.allowed_runs:]], action,
                                        self.thresholds.allowed_runs)
        if count is None:
            return None
        if earlier[-1].retryable_error:
            return None  # retrying after a retryable error is not a loop (lesson 5 moves it into code)
        if earlier[-1].failed and _spelling(earlier[-1].call) != _spelling(attempt.call):
            return None  # the tool refused one spelling ("Dec 1, 2026"); this is the model correcting it, not a repeat
        polls = info.polls if info else None
        if polls == "volatile" or action in self._changing:
            return None  # polling: its result changed last time (or may take a while to): progress, or no-progress's call
        if polls == "recheck" and earlier[-1].ran:
            attempt.recheck = True  # may have changed: run it, and judge it by its result
            return None
        return feedback.repeated_call(action, len(earlier), earlier, attempt, list(self.tools), self._echo())

    def _alternation(self, history: list[str], action: str, info: Optional[ToolInfo]) -> Optional[Detection]:
        length = self.thresholds.alternation_length
        pair = detectors.alternation(history, action, length)
        if pair is None or (info and info.polls == "volatile") or set(pair) & self._changing:
            return None  # a status that keeps changing between two checks is being watched, not looped on
        steps = [x.step for x in self.attempts[-(length - 1):]] + [self._now.number]
        return feedback.alternation(*pair, steps, length, list(self.tools), self._echo())

    def _echo(self) -> str:
        return feedback.echo(self._read.said, self.thresholds.echo_similarity)

    # -- intervene first, then interrupt ------------------------------------------------------
    def _flag(self, d: Detection, call: ToolCall, not_run: bool, original: Optional[ToolMessage] = None) -> "Verdict":
        first_in_turn = not self._now.flagged  # one lapse per turn, however many calls it caught
        self.strikes += first_in_turn
        self._now.flagged = True
        n = self.thresholds.interventions
        warned = f"{n} warning" + ("" if n == 1 else "s")
        stopping = first_in_turn and self.strikes > self.thresholds.interventions
        body = feedback.intervention(d, not_run=not_run, stopping=(
            f"The run is stopping: the loop went on after {warned}." if stopping else None)) if first_in_turn \
            else feedback.another_in_turn(d, not_run=not_run)
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
            return Verdict("stop", message=message, stop=Stop(STOP_REASONS[d.pattern], detail))
        return Verdict("intervene", message=message)

    def _enter_step(self, messages: Sequence[Message]) -> None:
        self._read.catch_up(messages)
        if self._read.steps != self._now.number:
            self._now.number = self._read.steps
            self._now.turn = self._read.last_turn
            self._now.actions = {}


def _spelling(call: ToolCall) -> str:
    """The arguments as written, key order and whitespace aside."""
    try:
        return json.dumps(call.parsed_arguments(), sort_keys=True)
    except ValueError:
        return call.arguments


def _retryable(content: str) -> bool:
    body = read_body(content)
    return body is not None and body.get("retryable") is True
