"""Lesson 3: the loop guard. Intervene first, then interrupt.

The guard keeps the books (books.py writes what each result brought into state.py's memory) and asks the
detectors of registry.py, in order; the first that fires speaks for the call. On the first detection the
run goes on: the call is not executed (a repeat that would act again or whose answer is known, a cycle), or
it runs and its result is replaced (the same answer again: the model never reads it twice) or wrapped (no
progress, which can only be seen once the call has run), and the model gets a structured feedback message as
that call's tool result, so the history stays protocol-valid:

    {"ok": false, "error_type": "loop_detected", "pattern": "repeated_call",
     "evidence": "get_order_status(order_id=A1234) was already run once (step 1) ...",
     "options": ["answer now with the results you have", ...],
     "instruction": "Answer the user now with what you have, or take one of the options. ..."}

Often that one message is enough: the model answers. If it persists, the run stops with the pattern's
stop reason (escalation.py says when a warning becomes a stop).

The guard reads everything it needs from its three hooks (loops/hooks.py): the history handed to
`before_call` (what the user said, and when), each call, and each result. Anything that drives it the
same way (the guarded loop, a shadow run over a recorded log) gets the same decisions.

    guard = LoopGuard.for_episode(episode)
    result = guarded_loop(episode, episode.limits.max_steps, Parts(guard=guard))
    guard.events  # what it saw and what it did, step by step
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ...core.canonical import action_of, canonical_arguments, raw_fingerprint, show
from ...core.paths import stated_directory
from ...core.messages import Message, ToolCall, ToolMessage
from ...loops.hooks import RUN, Stop, Verdict
from . import feedback
from .arguments import subject_of
from .books import book
from .checks import argument_problems, has_checks
from .effects import ToolInfo
from .escalation import Escalation
from .registry import DETECTORS
from .results import ResultReader
from .state import GuardedCall, Memory
from .thresholds import STOP_REASONS, THRESHOLDS, Thresholds, thresholds_for

if TYPE_CHECKING:
    from ...harness.episode import Episode

__all__ = ["LoopGuard", "STOP_REASONS", "THRESHOLDS", "Thresholds", "ToolInfo", "thresholds_for"]


@dataclass
class LoopGuard:
    tools: dict[str, ToolInfo]
    thresholds: Thresholds = Thresholds()
    events: list[dict[str, Any]] = field(default_factory=list)  # what the guard did, for traces
    memory: Memory = field(init=False)
    escalation: Escalation = field(init=False)  # when a warning becomes a stop
    _pending: Optional[Stop] = None  # a stop decided after a result, reported after the step
    _results: ResultReader = field(default_factory=ResultReader, repr=False, compare=False)
    _checked: dict[str, bool] = field(default_factory=dict)  # tool -> has it arguments checks.py checks

    def __post_init__(self) -> None:
        self.memory = Memory(self.tools, self.thresholds)
        self.escalation = Escalation(self.thresholds)

    @classmethod
    def for_episode(cls, episode: "Episode") -> "LoopGuard":
        tools = {t.name: ToolInfo(t.name, t.parameters, t.description,
                                  None if t.annotations is None else dict(t.annotations), t.volatile,
                                  frozenset(t.metadata)) for t in episode.scenario.tools}
        for spec in episode.tools.specs:  # tools offered without a scenario definition
            tools.setdefault(spec.name, ToolInfo(spec.name, spec.parameters, spec.description))
        return cls(tools, thresholds_for(episode.scenario.intent))

    @property
    def attempts(self) -> list[GuardedCall]:
        return self.memory.attempts

    # -- hook 1: before each tool call ---------------------------------------------------------
    def before_call(self, episode: "Episode", call: ToolCall, messages: Sequence[Message]) -> Verdict:
        m = self.memory
        self._enter_step(messages)
        info = m.info(call.name)
        today = episode.clock.today()
        try:
            args: Optional[dict[str, Any]] = call.parsed_arguments()
            canonical = canonical_arguments(args, info.parameters, today, stated_directory(m.read.request))
            attempt = GuardedCall(m.now.number, call, action_of(call.name, canonical), arguments=canonical,
                                  subject=f"{call.name} {subject_of(canonical)}", topic=subject_of(canonical, False))
        except ValueError:  # not a JSON object: the executor answers it; we still count it
            args = None
            attempt = GuardedCall(m.now.number, call, raw_fingerprint(call.name, call.arguments))
        attempt.epoch, attempt.heard, attempt.writes, attempt.news = m.epoch, m.read.heard, info.writes_by(args), m.news
        attempt.learned, attempt.index = m.learned, len(m.attempts)
        detection = next((d for d in (det.before_call(m, attempt) for det in DETECTORS) if d), None)
        m.attempts.append(attempt)
        m.by_id[call.id] = attempt
        m.by_action.setdefault(attempt.action, []).append(attempt)
        m.recent.append(attempt)
        m.now.actions.setdefault(attempt.action, call.id)
        if detection:
            return self.escalation.flag(m, self.events, detection, call, not_run=True)
        checked = self._checked.get(call.name)
        if checked is None:
            checked = self._checked[call.name] = has_checks(info.parameters)
        if args is not None and checked:
            problems = argument_problems(args, info.parameters, m.read.request, today)
            if problems:
                self.events.append({"step": m.now.number, "pattern": "invalid_argument", "action": show(attempt.action),
                                    "did": "answered with an actionable error"})
                return Verdict("intervene", message=feedback.invalid_argument(call, problems))
        return RUN

    # -- hook 2: after each tool result -------------------------------------------------------
    def after_result(self, episode: "Episode", call: ToolCall, result: ToolMessage) -> ToolMessage:
        m = self.memory
        a = m.by_id.get(call.id)
        if a is None:  # a call we never saw: leave it alone
            return result
        steps = episode.ledger.steps
        reached = any(t.call_id == call.id for t in steps[-1].tools) if steps else True  # the tool saw it
        before = book(m, self._results, a, result, reached)
        detection = next((d for d in (det.after_result(m, a, before) for det in DETECTORS) if d), None)
        if detection is None:
            return result
        flagged = self.escalation.flag(m, self.events, detection, call, not_run=False, original=result)
        if flagged.action == "stop":  # keep the real result in the history: a degraded answer can use it
            self._pending = flagged.stop
            return result
        assert flagged.message is not None
        return flagged.message

    # -- hook 3: after each step --------------------------------------------------------------
    def after_step(self, episode: "Episode", messages: Sequence[Message]) -> Optional[Stop]:
        m = self.memory
        if m.now.counts:
            m.new_per_step.append(m.now.new)
        self.escalation.step_ended(m)
        m.now.end()
        stop, self._pending = self._pending, None
        return stop

    def _enter_step(self, messages: Sequence[Message]) -> None:
        m = self.memory
        m.read.catch_up(messages)
        if m.read.heard != m.heard:  # the user spoke: the steps that answer it are judged on their own
            m.heard = m.read.heard
            m.new_per_step.clear()
        if m.read.steps != m.now.number:
            m.now.number = m.read.steps
            m.now.turn = m.read.last_turn
            m.now.actions = {}
