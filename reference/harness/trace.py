"""Lesson 6: the run's trace, one JSON object a line, written as the run happens.

Every episode has one (`episode.trace`). The ledger feeds it each model request and each tool
attempt the moment they happen, so a run that crashes or is cut off still leaves its trace up to the
last thing it did; the loop or its parts add their own events with `episode.trace.event(kind, ...)`
(a guard's verdict, the budget's state). Tracing reads the meters, it never moves them: the same run
costs the same simulated time and tokens with or without a file behind the trace.

    {"kind": "run", ...}       the scenario's limits, tools, latencies, pricing, wire and seed
    {"kind": "step", ...}      one model request: tokens, latency, cost, text, tool calls (fingerprinted)
    {"kind": "tool", ...}      one tool attempt (a retried call has several): status, latency, outcome
    {"kind": "results", ...}   what the model read back for a step's calls: status, error type, length
    {"kind": "event", ...}     what a loop or a part reported (`event` names it: guard, budget, ...)
    {"kind": "user", ...}      the user's next turn in a conversation (after an answer without tool calls)
    {"kind": "error", ...}     a model request that raised
    {"kind": "finish", ...}    the stop reason and the totals

What replay needs is always kept, redacted (reference/core/redact.py): call arguments, tool results,
the assistant's text. The prompts (system and user text, the user's later turns too) are kept only with
`capture_content=True`; without, only their length, so that a replay can stand in text that costs the
same tokens.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import IO, Any, Callable, Mapping, Optional, Sequence, Union

from ..core.canonical import call_fingerprint
from ..core.messages import AssistantMessage, Message, ToolMessage, ToolSpec
from ..core.redact import redact, redact_text
from ..core.toolresult import read_body
from ..wire.formats import wire_format

VERSION = 1
Fingerprint = Callable[[str, str, Optional[Mapping[str, Any]]], str]  # (tool, argument text, schema) -> text


def canonical_fingerprint(tool: str, arguments: str, parameters: Optional[Mapping[str, Any]] = None) -> str:
    """`tool {canonical spelling}`: the canonical form of reference/core/canonical.py (the one the loop guard
    and the executor use), spelling only: key order, whitespace, Unicode forms, numbers, paths and (where the
    schema says case does not matter) case do not change it; an airport code or a date keeps its meaning as
    written, so that trace diagnosis can tell a re-spelt question from a repeat."""
    return call_fingerprint(tool, arguments, parameters, meaning=False)


def _chars(text: str, raw: bool = False) -> int:
    """The prompt's length as the token estimator counts it: inside a JSON message (escapes included), or
    raw (Anthropic's top-level `system`). A plain stand-in of this length costs the same tokens."""
    return len(text) if raw else len(json.dumps(text, ensure_ascii=False)) - 2


def digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


# ---------------------------------------------------------------- the trace

class Trace:
    """The records of one run, in memory and (with `sink`, a path or an open text file) on disk, a line
    each, flushed as written."""

    def __init__(self, sink: Union[str, Path, IO[str], None] = None, *, capture_content: bool = False,
                 fingerprint: Optional[Fingerprint] = None):
        self.records: list[dict[str, Any]] = []
        self.capture_content = capture_content
        self.fingerprint = fingerprint or canonical_fingerprint
        self._owns_sink = isinstance(sink, (str, Path))
        self._sink: Optional[IO[str]] = open(sink, "w", encoding="utf-8") if isinstance(sink, (str, Path)) else sink
        self._clock: Any = None
        self._schemas: dict[str, Any] = {}
        self._open_calls: dict[str, str] = {}  # call id -> tool, for calls whose results are not yet recorded
        self._attempts: dict[str, int] = {}
        self.step = 0
        self.tokens = 0
        self.cost_usd = 0.0

    # -- writing ---------------------------------------------------------------------------------
    def _write(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        if self._sink is not None:
            self._sink.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            self._sink.flush()

    def _now(self) -> float:
        return round(self._clock.elapsed, 6) if self._clock is not None else 0.0

    def event(self, event: str, **fields: Any) -> None:
        """What a loop or a part has to say (a verdict, a budget's state), at the current step and time."""
        self._write({"kind": "event", "event": event, "step": self.step, "t": self._now(), **redact(fields)})

    def close(self) -> None:
        if self._owns_sink and self._sink is not None:
            self._sink.close()
        self._sink = None

    # -- fed by the episode and the ledger ---------------------------------------------------------
    def start(self, scenario: Any, clock: Any, seed: Optional[int]) -> None:
        self._clock = clock
        self._schemas = {t.name: t.parameters for t in scenario.tools}
        model = scenario.model
        record = {
            "kind": "run", "v": VERSION, "scenario": scenario.name, "title": scenario.title, "intent": scenario.intent,
            "shape": scenario.shape, "clock": scenario.clock, "wire": model.wire, "seed": seed,
            "model_seed": model.seed, "model": model.name, "pricing": model.pricing.model_dump(),
            "latency": model.latency.model_dump(), "limits": scenario.limits.model_dump(),
            "checklist": redact([c.model_dump(exclude_none=True) for c in scenario.checklist]),
            "tools": [redact({k: v for k, v in t.model_dump(include={
                "name", "description", "parameters", "latency_seconds", "volatile", "annotations", "metadata",
                "alternatives"}).items() if v is not None}) for t in scenario.tools],  # unset hints stay unset
            "prompt_chars": {"system": _chars(scenario.system, raw=wire_format(model.wire).system_apart),
                             "user": _chars(scenario.user)},
            "capture_content": self.capture_content,
            "cancel": scenario.cancel.model_dump(exclude_none=True) if getattr(scenario, "cancel", None) else None,
        }
        if self.capture_content:
            record["system"], record["user"] = redact_text(scenario.system), redact_text(scenario.user)
        self._write(record)

    def before_request(self, messages: Sequence[Message], tools: Sequence[ToolSpec], tool_choice: str) -> None:
        self._results(messages)
        self._offered = [t.name for t in tools]
        self._tool_choice = tool_choice

    def on_request_failed(self, exc: BaseException) -> None:
        self._write({"kind": "error", "step": self.step + 1, "t": self._now(), "error_type": type(exc).__name__,
                     "fault": getattr(exc, "kind", None), "retry_after": getattr(exc, "retry_after", None),
                     "timeout_seconds": getattr(exc, "timeout_seconds", None)})  # a provider failure, to replay

    def on_step(self, step: Any, cost_usd: float) -> None:
        self.step = step.step
        self.tokens += step.input_tokens + step.output_tokens
        self.cost_usd += cost_usd
        calls = []
        for c in step.tool_calls:
            fp = self.fingerprint(c["name"], c["arguments"], self._schemas.get(c["name"]))
            calls.append({"id": c["id"], "name": c["name"], "arguments": redact_text(c["arguments"]),
                          "digest": digest(fp), "fingerprint": redact_text(fp)})
            self._open_calls[c["id"]] = c["name"]
        self._write({
            "kind": "step", "step": step.step, "t": round(step.started, 6), "latency": round(step.model_seconds, 6),
            "input_tokens": step.input_tokens, "output_tokens": step.output_tokens, "cost_usd": cost_usd,
            "tokens_so_far": self.tokens, "cost_so_far": self.cost_usd, "finish_reason": step.finish_reason,
            "tool_choice": getattr(self, "_tool_choice", "auto"), "offered": getattr(self, "_offered", []),
            "text": redact_text(step.text) if step.text else step.text, "tool_calls": calls})

    def on_user_turn(self, text: str) -> None:
        record = {"kind": "user", "step": self.step, "t": self._now(), "chars": _chars(text)}
        if self.capture_content:
            record["text"] = redact_text(text)
        self._write(record)

    def on_tool(self, record: Any) -> None:
        n = self._attempts[record.call_id] = self._attempts.get(record.call_id, 0) + 1
        outcome = record.outcome or {}
        status = "raised" if record.exception else ("ok" if record.ok else "error")
        self._write({
            "kind": "tool", "step": self.step, "call_id": record.call_id, "name": record.name, "attempt": n,
            "arguments": redact(record.arguments), "t": round(record.started, 6), "latency": round(record.seconds, 6),
            "status": status, "error_type": outcome.get("error_type") or record.exception,
            "exception": record.exception, "outcome": redact(outcome) if outcome else None})

    def finish(self, result: Any) -> None:
        self._results(result.messages)
        self._write({
            "kind": "finish", "step": self.step, "t": self._now(), "loop": result.loop,
            "stop_reason": result.stop_reason.value, "detail": result.detail,
            "answer": redact_text(result.answer) if result.answer else result.answer,
            "degraded": result.degraded is not None, "model_calls": result.model_calls,
            "tool_calls": result.tool_calls, "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens, "cost_usd": result.cost_usd,
            "sim_seconds": result.sim_seconds})

    def _results(self, messages: Sequence[Message]) -> None:
        """The results that answered the last assistant turn, as the model reads them, once each."""
        tail: list[ToolMessage] = []
        for m in reversed(messages):
            if isinstance(m, AssistantMessage):
                break
            if isinstance(m, ToolMessage) and m.call_id in self._open_calls:
                tail.append(m)
        if not tail:
            return
        rows = []
        for m in reversed(tail):
            body = read_body(m.content)
            rows.append({"call_id": m.call_id, "name": self._open_calls.get(m.call_id),
                         "status": "error" if m.is_error else "ok", "length": len(m.content),
                         "error_type": (body or {}).get("error_type") if m.is_error else None,
                         "content": redact_text(m.content)})
        for m in tail:  # two calls may share an id (a protocol fault the kit scripts on purpose)
            self._open_calls.pop(m.call_id, None)
        self._write({"kind": "results", "step": self.step, "t": self._now(), "results": rows})


def load(source: Union[str, Path, "Trace", Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The records of a trace, from a JSONL file, a `Trace`, or a list of records."""
    if isinstance(source, Trace):
        return source.records
    if isinstance(source, (str, Path)):
        with open(source, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    return list(source)
