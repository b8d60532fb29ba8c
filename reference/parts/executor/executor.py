"""Lesson 5: the resilient executor, the `executor` part of the guarded loop.

    parts = Parts(executor=ResilientExecutor.for_episode(episode))

How one tool call runs:
  1. Malformed calls never reach a tool: an unknown name, a tool not offered in this run (or
     withdrawn), arguments that are not a JSON object, arguments that break the tool's JSON Schema
     (checked with the `jsonschema` package). Each is answered with an actionable error.
  2. The call runs; a failure is classified by taxonomy.py (the one place that decides).
     Retryable failures are retried *in code*, with exponential backoff and seeded jitter on the
     simulated clock, honouring Retry-After, capped by attempts and by the run's time budget.
     A retry that succeeds is invisible to the model; the ledger records every attempt.
  3. What still fails is translated into a result the model can act on, never an exception's text.
     HTTP 200 with `success: false` goes down this branch too.
  4. Circuit breaker per tool: after `failure_threshold` failed calls in a row that were the tool's
     fault, the tool is withdrawn from `offered()` for the rest of the run and the model is told.
     When every tool the task still needs is withdrawn, `after_step` stops the run (circuit_open).
  5. A model that sends the same rejected call again and again is stopped (repeated_call) after
     `max_same_rejections`, so a malformed call cannot loop forever even without the loop guard.

Nothing here raises on anything a tool or the model does.
"""
from __future__ import annotations

import difflib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Optional

from ...core.canonical import call_fingerprint
from ...core.messages import ToolCall, ToolMessage, ToolSpec
from ...core.result import StopReason
from ...core.toolresult import to_json
from ...harness.episode import Episode
from ...loops import hooks
from ...loops.hooks import Stop
from . import translate
from .oversize import clip_oversized
from .redaction import scrub
from .retries import RetryPolicy, decide, time_left
from .schema import Validators
from .taxonomy import KINDS, Failure, classify_exception, classify_outcome


@dataclass
class ToolAttempt:
    """One attempt, as the executor saw it (the ledger has the tool's side of it)."""

    call_id: str
    tool: str
    number: int
    error_type: Optional[str]  # None: success
    started: float
    waited_after: float = 0.0


@dataclass
class ResilientExecutor(hooks.Executor):
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    failure_threshold: int = 2  # failed calls in a row (each already retried) before the circuit opens
    max_same_rejections: int = 3  # the same rejected call this many times stops the run
    max_seconds: Optional[float] = None  # the run's time budget
    requests_after: int = 2  # model requests whose time a retry must leave: the next one and the final answer
    allowed_tools: Optional[set[str]] = None  # offer only these (intent-based tool loading); None: all
    seed: str = "0"
    validate: bool = True  # check arguments against the tool's JSON Schema
    budget: Any = None  # the run's budget (lesson 2): a result over its fair share of what is left is clipped

    # the run's state
    attempts: list[ToolAttempt] = field(default_factory=list, init=False)
    withdrawn: dict[str, str] = field(default_factory=dict, init=False)  # tool -> why

    def __post_init__(self) -> None:
        self.rng = random.Random(f"executor:{self.seed}")  # seeded: the same run waits the same
        self._consecutive: dict[str, int] = {}  # tool -> failed calls in a row that were its fault
        self._rejections: dict[str, int] = {}  # rejected call -> how many times
        self._succeeded: list[tuple[str, dict[str, Any]]] = []
        self._offered: Optional[set[str]] = None  # names offered in the latest request
        self._trip: Optional[Stop] = None
        self._validators = Validators()
        self.model_retries = 0  # model requests sent again after a provider failure

    @classmethod
    def for_episode(cls, episode: Episode, **overrides: Any) -> "ResilientExecutor":
        scenario = episode.scenario
        settings: dict[str, Any] = {"max_seconds": episode.limits.max_seconds,
                                    "seed": f"{scenario.name}:{scenario.model.seed}"}
        settings.update(overrides)
        return cls(**settings)

    # -- figures for the run record --------------------------------------------------------------
    @property
    def retries(self) -> int:
        """Attempts beyond the first of each call."""
        return sum(1 for a in self.attempts if a.number > 1)

    @property
    def waited_seconds(self) -> float:
        return sum(a.waited_after for a in self.attempts)

    # -- the Executor protocol ------------------------------------------------------------------
    def offered(self, episode: Episode) -> list[ToolSpec]:
        specs = [s for s in episode.tools.specs if s.name not in self.withdrawn
                 and (self.allowed_tools is None or s.name in self.allowed_tools)]
        self._offered = {s.name for s in specs}
        return specs

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        try:
            return clip_oversized(episode, call, self._execute(episode, call), self.budget)
        except Exception as exc:  # a bug here (or in a tool wrapper) must not end the run
            failure = Failure("internal_error", exception=type(exc).__name__)
            return translate.translate(call, failure, alternatives=self._alternatives(episode, call.name))

    def after_step(self, episode: Episode) -> Optional[Stop]:
        if self._trip:
            return self._trip
        if not self.withdrawn:
            return None
        names = set(episode.tools.names)
        needed = self.needed_tools(episode)
        if set(self.withdrawn) >= names or (needed and needed <= set(self.withdrawn)):
            which = "; ".join(f"{t} {why}" for t, why in self.withdrawn.items())
            heals = all(KINDS.get(why.rsplit("last: ", 1)[-1], KINDS["internal_error"]).retryable
                        for why in self.withdrawn.values())  # timeouts may heal; a bug does not
            return Stop(StopReason.CIRCUIT_OPEN, f"{which}; no tool the task still needs is left",
                            retryable=heals)
        return None

    def after_model_failure(self, episode: Episode, exc: BaseException, attempt: int) -> Optional[Stop]:
        """The model request failed (429, 5xx, 529, a timeout): wait and let the loop send it again (None),
        or say why the run stops. The same rule as a tool's retries (retries.py)."""
        failure = classify_exception(exc)
        status = f"HTTP {failure.http_status} " if failure.http_status else ""
        what = f"the model request failed ({status}{failure.error_type})"
        decision = decide(failure, attempt, self.policy, self.rng,
                          time_left(episode, self.max_seconds, self.requests_after), 0.0)
        episode.trace.event("model_failure", attempt=attempt, error_type=failure.error_type,
                            retry_after=failure.retry_after, wait=decision.wait)
        if decision.wait is not None:
            self.model_retries += 1
            if episode.wait(decision.wait):
                return None
            return Stop(StopReason.CANCELLED, "the user pressed stop during a retry wait")
        if decision.stop:
            return Stop(StopReason.TIME_BUDGET, f"{what}: {decision.gave_up}; retry after "
                            f"{failure.retry_after:g} s", retryable=True, retry_after=failure.retry_after, model_failed=True)
        if not failure.retryable:
            return Stop(StopReason.ERROR, f"{what}; it is not retryable", retryable=False, model_failed=True)
        return Stop(StopReason.ERROR, f"{what} {attempt} time{'s' if attempt > 1 else ''}; {decision.gave_up}",
                        retryable=True, retry_after=failure.retry_after, model_failed=True)

    # -- one call -------------------------------------------------------------------------------
    def _execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        rejected = self._check_call(episode, call)
        if rejected is not None:
            return self._reject(call, rejected)
        args = call.parsed_arguments()  # checked above
        outcome, failure, attempts, gave_up = self._run_with_retries(episode, call, args)
        if failure is None:
            self._consecutive[call.name] = 0
            self._succeeded.append((call.name, args))
            data, found = scrub(outcome.data)  # a success may carry a key or a stack trace too
            if found:
                episode.ledger.count_redactions(found)
                episode.trace.event("redacted", call_id=call.id, tool=call.name, kinds=dict(found))
            return ToolMessage(call.id, to_json({"ok": True, "data": data}))
        body = translate.failure_body(call, failure, schema=self._schema(episode, call.name), attempts=attempts,
                                      alternatives=self._alternatives(episode, call.name), gave_up=gave_up,
                                      clock_today=episode.clock.today())
        if failure.tool_fault:
            self._consecutive[call.name] = self._consecutive.get(call.name, 0) + 1
            if self._consecutive[call.name] >= self.failure_threshold:
                self._open_circuit(call, failure, body)
        else:  # the tool answered: it is up, the call was wrong
            self._consecutive[call.name] = 0
            if not self._volatile(episode, call.name):  # polling until a job exists can be progress
                self._count_rejection(call, failure.error_type)
        return ToolMessage(call.id, to_json(body), is_error=True)

    def _run_with_retries(self, episode: Episode, call: ToolCall, args: dict[str, Any]):
        """(outcome, failure or None, attempts made, why the retries stopped early or None)."""
        for number in range(1, self.policy.max_attempts + 1):
            started = episode.clock.elapsed
            record = ToolAttempt(call.id, call.name, number, None, started)
            self.attempts.append(record)
            outcome = None
            try:
                outcome = episode.tools.invoke(call.name, args, call.id)  # the ledger records it
                failure = classify_outcome(outcome)
            except Exception as exc:
                failure = classify_exception(exc)
            if failure is None:
                return outcome, None, number, None
            record.error_type = failure.error_type
            took = episode.clock.elapsed - started
            decision = decide(failure, number, self.policy, self.rng,
                              time_left(episode, self.max_seconds, self.requests_after), took)
            if decision.stop and self._trip is None:  # waiting that long is not an option: end the run
                self._trip = Stop(StopReason.TIME_BUDGET, f"'{call.name}' {failure.kind.summary}: "
                                      f"{decision.gave_up}; retry after {failure.retry_after:g} s",
                                      retryable=True, retry_after=failure.retry_after)
            if decision.wait is None:
                return outcome, failure, number, decision.gave_up
            before = episode.clock.elapsed
            if not episode.wait(decision.wait):  # simulated; the user may press stop while we wait
                self._trip = self._trip or Stop(StopReason.CANCELLED, "the user pressed stop during a retry wait")
                record.waited_after = episode.clock.elapsed - before
                return outcome, failure, number, "the user pressed stop"
            record.waited_after = decision.wait
        raise AssertionError("unreachable: the last attempt always returns")

    def _check_call(self, episode: Episode, call: ToolCall) -> Optional[tuple[str, str, dict[str, Any]]]:
        """(error_type, message, fields) for a call that must not run; None if it may."""
        offered = self._offered if self._offered is not None else set(episode.tools.names)
        if call.name not in episode.tools.tools:
            close = difflib.get_close_matches(call.name, sorted(offered), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            return ("unknown_tool", f"There is no tool named '{call.name}'.{hint}",
                    {"available_tools": sorted(offered)})
        if call.name in self.withdrawn:
            return ("circuit_open", f"'{call.name}' {KINDS['circuit_open'].summary} "
                    f"({self.withdrawn[call.name].removeprefix('withdrawn after ')}).",
                    {"alternatives": self._alternatives(episode, call.name), "available_tools": sorted(offered)})
        if call.name not in offered:
            return ("tool_not_offered", f"'{call.name}' {KINDS['tool_not_offered'].summary}.",
                    {"available_tools": sorted(offered)})
        try:
            args = call.parsed_arguments()
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            return ("invalid_json", f"The arguments for '{call.name}' are not a valid JSON object ({reason}).",
                    translate.signature_help(self._schema(episode, call.name), episode.clock.today()))
        if self.validate:
            problem = self._validators.problem(call.name, self._schema(episode, call.name), args,
                                               episode.clock.today())
            if problem is not None:
                text, fields = problem
                return ("invalid_argument", f"'{call.name}' was not run: {text}.", fields)
        return None

    def _reject(self, call: ToolCall, rejected: tuple[str, str, dict[str, Any]]) -> ToolMessage:
        error_type, text, fields = rejected
        self._count_rejection(call, error_type)
        return translate.error_message(call, error_type, text, **fields)

    def _count_rejection(self, call: ToolCall, error_type: str) -> None:
        """The same rejected call again and again is a loop: stop it after `max_same_rejections`."""
        key = call_fingerprint(call.name, call.arguments)  # the one answer to "the same call?"
        self._rejections[key] = self._rejections.get(key, 0) + 1
        if self._rejections[key] >= self.max_same_rejections and self._trip is None:
            self._trip = Stop(StopReason.REPEATED_CALL,
                              f"the model sent the same rejected call to '{call.name}' {self._rejections[key]} times "
                              f"({error_type})")

    def _open_circuit(self, call: ToolCall, failure: Failure, body: dict[str, Any]) -> None:
        """Withdraw the tool, and turn the failure's error body into the news that it is gone."""
        count = self._consecutive[call.name]
        self.withdrawn[call.name] = f"withdrawn after {count} failed calls in a row, last: {failure.error_type}"
        body["error_type"] = "circuit_open"
        body["retryable"] = False
        body["cause"] = failure.error_type
        body["message"] += (f" '{call.name}' has now failed {count} calls in a row and is withdrawn for the rest of "
                            "this run.")
        body["instruction"] = KINDS["circuit_open"].instruction

    # -- the task's tools -----------------------------------------------------------------------
    def needed_tools(self, episode: Episode) -> set[str]:
        """Tools named by checklist items not done yet (all tools if the checklist names none)."""
        items = [c for c in episode.scenario.checklist if c.tool]
        if not items:
            return set(episode.tools.names)
        return {c.tool for c in items if not any(
            name == c.tool and all(args.get(k) == v for k, v in (c.when or {}).items())
            for name, args in self._succeeded)}

    def _schema(self, episode: Episode, name: str) -> dict[str, Any]:
        spec = next((s for s in episode.tools.specs if s.name == name), None)
        return spec.parameters if spec else {"type": "object", "properties": {}}

    def _volatile(self, episode: Episode, name: str) -> bool:
        return any(t.name == name and t.volatile for t in episode.scenario.tools)

    def _alternatives(self, episode: Episode, name: str) -> list[str]:
        tool = next((t for t in episode.scenario.tools if t.name == name), None)
        offered = self._offered if self._offered is not None else set(episode.tools.names)
        return [a for a in getattr(tool, "alternatives", []) if a in offered and a not in self.withdrawn]
