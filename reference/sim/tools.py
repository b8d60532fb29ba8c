"""Fake tools with structured results and the faults the curriculum needs.

A tool answers with a `ToolOutcome` (`ok`, `data`, `error_type`, `retryable`, `message`, plus the
HTTP status and retry-after a real API would send), or it raises, as real client code does on a
timeout or a bug. Latency is simulated time on the run's clock: nothing here sleeps.

`Toolbox.execute` is the lesson-1 executor: it never raises and never shows the model an exception's
text (lesson 5 replaces it with retries, translation and circuit breakers).
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from .clock import SimClock
from ..core.messages import ToolCall, ToolMessage, ToolSpec
from ..core.toolresult import error_body, to_json, tool_error
from .books import ToolOutputs
from .scenario.schema_tools import MAX_RESULT_CHARS, RuleDef, ToolDef

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class ToolTimeout(TimeoutError):
    """The tool did not answer in time (raised after its timeout has elapsed on the clock)."""


@dataclass(frozen=True)
class ToolOutcome:
    ok: bool
    data: Any = None
    error_type: str | None = None
    retryable: bool = False
    message: str | None = None
    http_status: int = 200
    retry_after: float | None = None

    def to_content(self) -> str:
        """The JSON text the model reads as the tool result."""
        if self.ok:
            return to_json({"ok": True, "data": self.data})
        extra = {"retry_after": self.retry_after} if self.retry_after is not None else {}
        return to_json(error_body(self.error_type, self.message, retryable=self.retryable,
                                  **extra))


# The faults a scenario can give a tool: (HTTP status, error_type, retryable, default message)
FAULTS: dict[str, tuple[int, str, bool, str]] = {
    "rate_limit": (429, "rate_limited", True, "Too many requests."),
    "server_error": (503, "unavailable", True, "Service temporarily unavailable."),
    "invalid_argument": (400, "invalid_argument", False, "Invalid argument."),
    "permission_denied": (403, "permission_denied", False, "Permission denied."),
    "not_found": (404, "not_found", False, "Not found."),
    "conflict": (409, "conflict", False, "HTTP 409 Conflict: the resource was changed by another request."),
    "precondition_failed": (412, "precondition_failed", False,
                            "HTTP 412 Precondition Failed: the resource changed since it was read."),
}


def filler(size: int, seed: str = "") -> list[str]:
    """Deterministic bulky data: log lines adding up to about `size` characters."""
    lines, total, n = [], 0, 0
    while total < size:
        line = f"{seed}#{n:05d} INFO worker-{n % 7} processed batch {n * 37 % 1000} in {n % 90 + 10}ms"
        lines.append(line)
        total += len(line) + 4
        n += 1
    return lines


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool, int)) or (isinstance(value, float) and value == value)


class RuleIndex:
    """The first rule whose `when` matches the arguments, without trying every rule (a listing scripted
    page by page has a rule per page). Rules whose `when` holds plain values are looked up by value, a
    table per set of keys (a dict finds what `==` finds: 1, 1.0 and True alike); the others (no `when`,
    lists, objects) are tried in order, as `RuleDef.matches` does."""

    def __init__(self, rules: Sequence["RuleDef"]):
        self.rules = rules
        self.tables: dict[tuple[str, ...], dict[tuple[Any, ...], int]] = {}
        self.others: list[int] = []
        for i, rule in enumerate(rules):
            if rule.when and all(_plain(v) for v in rule.when.values()):
                keys = tuple(sorted(rule.when))
                self.tables.setdefault(keys, {}).setdefault(tuple(rule.when[k] for k in keys), i)
            else:
                self.others.append(i)

    def first(self, args: dict[str, Any]) -> int | None:
        found: list[int] = []
        for keys, table in self.tables.items():
            if all(k in args for k in keys):
                try:
                    i = table.get(tuple(args[k] for k in keys))
                except TypeError:  # a list or an object among the arguments: equal to no plain value
                    i = None
                if i is not None:
                    found.append(i)
        best = min(found, default=None)
        for i in self.others:
            if best is not None and i > best:
                break
            if self.rules[i].matches(args):
                return i
        return best


class FakeTool:
    """A tool played from its scenario definition: rules matched in order, first match wins."""

    def __init__(self, spec: "ToolDef", clock: SimClock):
        self.spec = spec
        self.clock = clock
        self.calls = 0
        self._rule_hits: dict[tuple[int, str], int] = {}
        self._rules = RuleIndex(spec.rules)

    def __call__(self, args: dict[str, Any]) -> ToolOutcome:
        self.calls += 1
        index = self._rules.first(args)
        if index is not None:
            rule = self.spec.rules[index]
            return self._play(rule, self._position(index, rule, args), args)
        # no rule matched: the tool itself says so, as a real API would
        self.clock.advance(self.spec.latency_seconds)
        return ToolOutcome(False, error_type="not_found", http_status=404,
                           message=f"No result for {json.dumps(args, ensure_ascii=False, sort_keys=True)}.")

    def _position(self, index: int, rule: Any, args: dict[str, Any]) -> int:
        """Which of the rule's `results` this call gets (see RuleDef.advance)."""
        if rule.advance == "time":  # the job moves on with the clock, however often it is polled
            return int(self.clock.elapsed // rule.every_seconds)
        key = (index, json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
               if rule.advance == "arguments" else "")
        hit = self._rule_hits.get(key, 0)
        self._rule_hits[key] = hit + 1
        return hit

    def _play(self, rule: Any, hit: int, args: dict[str, Any]) -> ToolOutcome:
        latency = rule.latency_seconds if rule.latency_seconds is not None else self.spec.latency_seconds
        result = rule.results[min(hit, len(rule.results) - 1)] if rule.results else rule.result
        fault = result.fault
        if fault == "timeout":
            self.clock.advance(result.timeout_seconds)
            raise ToolTimeout(f"{self.spec.name} timed out after {result.timeout_seconds:g}s")
        self.clock.advance(latency)
        if fault == "exception":
            raise RuntimeError(result.message or "internal error")
        if fault == "connection_reset":
            raise ConnectionResetError(104, "Connection reset by peer")
        if fault in FAULTS:
            status, error_type, retryable, default = FAULTS[fault]
            return ToolOutcome(False, error_type=error_type, retryable=retryable, http_status=status,
                               message=result.message or default, retry_after=result.retry_after_seconds)
        if fault == "business_failure":
            # HTTP 200, and the body says it failed: the classic trap
            body = {"success": False, "error_code": result.error_code or "REJECTED",
                    "error_message": result.message or "The request was rejected."}
            return ToolOutcome(True, data=body, http_status=200)
        data = copy.deepcopy(result.data)  # scenarios are cached: never hand out their objects
        if result.grow_chars:
            size = min(result.grow_chars * (hit + 1), MAX_RESULT_CHARS)  # bounded: the run holds every result
            data = {"page": hit + 1, "lines": filler(size, self.spec.name)}
        elif result.size_chars:
            data = {"lines": filler(result.size_chars, self.spec.name)}
        return ToolOutcome(True, data=data, http_status=200)


class ToolRecorder(Protocol):
    """Where each tool attempt is recorded: the harness's ledger (reference/harness/ledger.py)."""

    def record_tool(self, call_id: str, name: str, args: dict[str, Any], outcome: Any, exc: Exception | None,
                    started: float, ended: float) -> None: ...


@dataclass
class Toolbox:
    """The tools of one run: what is offered to the model and how calls are carried out."""

    tools: dict[str, Callable[[dict[str, Any]], ToolOutcome]]
    specs: list[ToolSpec]
    clock: SimClock
    ledger: "ToolRecorder"
    descriptions: dict[str, str] = field(default_factory=dict)
    outputs: ToolOutputs = field(default_factory=ToolOutputs)  # what each call really returned (sim/books.py)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.specs]

    def invoke(self, name: str, args: dict[str, Any], call_id: str = "") -> ToolOutcome:
        """Call the tool itself. May raise, as real tool code does; every attempt is recorded."""
        started = self.clock.elapsed
        try:
            outcome = self.tools[name](args)
        except Exception as exc:
            self.ledger.record_tool(call_id, name, args, None, exc, started, self.clock.elapsed)
            raise
        self.ledger.record_tool(call_id, name, args, outcome, None, started, self.clock.elapsed)
        if isinstance(outcome, ToolOutcome):
            self.outputs.record(name, args, outcome.to_content())
        return outcome

    def execute(self, call: ToolCall) -> ToolMessage:
        """Run one tool call and answer it. Never raises; never leaks an exception's text."""
        if call.name not in self.tools:
            return _error(call, "unknown_tool", f"There is no tool named '{call.name}'. "
                          f"Available tools: {', '.join(self.names)}.")
        try:
            args = call.parsed_arguments()
        except ValueError as exc:
            return _error(call, "invalid_json", f"The arguments are not a valid JSON object ({_reason(exc)}). "
                          "Send the arguments as a JSON object matching the tool's schema.")
        try:
            outcome = self.invoke(call.name, args, call.id)
        except ToolTimeout:
            return _error(call, "timeout", f"'{call.name}' did not answer in time.", retryable=True)
        except Exception:
            return _error(call, "internal_error", f"'{call.name}' failed with an internal error.")
        return ToolMessage(call.id, outcome.to_content(), is_error=not outcome.ok)


def _reason(exc: ValueError) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)


def _error(call: ToolCall, error_type: str, message: str, retryable: bool = False) -> ToolMessage:
    return tool_error(call.id, error_type, message, retryable=retryable)
