"""The degraded result: why the run stopped, what it obtained and tried, what is unfinished, what to
do next, and the text the user reads (`Degraded.render`)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from ...core.result import StopReason
from .next_steps import WHY, NextStep


@dataclass
class Obtained:
    """One fact: a tool call that succeeded and returned data. `times` counts identical repeats."""

    tool: str
    arguments: dict[str, Any]
    data: Any
    call_id: str  # the call that first returned it: find its ToolMessage in the history by this id
    step: int  # the model request that asked for it (1-based, as in the ledger)
    times: int = 1

    def label(self) -> str:
        return call_label(self.tool, self.arguments)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Tried:
    """A call that ran but brought nothing usable: an empty result, an error, a business failure."""

    tool: str
    arguments: dict[str, Any]
    outcome: str  # "no results", "error: not_found", "business failure: CARD_DECLINED", "raised: ToolTimeout"
    times: int = 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FinalCall:
    """What happened to the optional last tool-less request (for the trace and the cost report)."""

    status: str  # "used" | "skipped" | "failed" | "rejected"
    reason: str
    estimate: dict[str, float] = field(default_factory=dict)  # input_tokens, output_tokens, cost_usd, seconds
    actual: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Degraded:
    stop_reason: StopReason
    detail: str
    obtained: list[Obtained]
    unfinished: list[str]
    next_steps: list[NextStep]
    answer: str = ""  # the text the user sees; `render()` writes one from the fields above
    done: list[str] = field(default_factory=list)  # checklist items a successful call covered
    tried: list[Tried] = field(default_factory=list)
    final: Optional[FinalCall] = None

    def to_dict(self) -> dict[str, Any]:
        reason = StopReason(self.stop_reason)
        return {
            "stop_reason": reason.value, "kind": reason.kind, "detail": self.detail,
            "obtained": [o.to_dict() for o in self.obtained], "tried": [t.to_dict() for t in self.tried],
            "done": list(self.done), "unfinished": list(self.unfinished),
            "next_steps": [s.to_dict() for s in self.next_steps], "answer": self.answer,
            "final": self.final.to_dict() if self.final else None,
        }

    def render(self, headline: bool = True, found: bool = True) -> str:
        """A readable answer from the fields: why, what was found, what was tried, what is missing, what
        to do next, and the stop reason with its technical detail."""
        reason = StopReason(self.stop_reason)
        parts = [f"I could not finish this request: {WHY.get(reason, reason.value)}."][:int(headline)]
        if found:
            if self.obtained:
                shown = self.obtained[:SHOW]
                more = len(self.obtained) - len(shown)
                parts.append("What I found:\n" + "\n".join(
                    f"- {o.label()}: {preview(o.data)}" + (f" (same result {o.times} times)" if o.times > 1 else "")
                    for o in shown) + (f"\n- and {more} more result(s), listed in the full record" if more else ""))
            else:
                parts.append("I found nothing usable before stopping.")
        if self.tried:
            parts.append("What I tried without result:\n" + "\n".join(
                f"- {call_label(t.tool, t.arguments)}: {t.outcome}" + (f" ({t.times} times)" if t.times > 1 else "")
                for t in self.tried))
        if self.unfinished:
            parts.append("Not done yet:\n" + "\n".join(f"- {item}" for item in self.unfinished))
        if self.next_steps:
            parts.append("What you can do next:\n" + "\n".join(f"- {s.text}" for s in self.next_steps))
        detail = self.detail if self.detail.startswith(reason.value) else f"{reason.value}: {self.detail}"
        parts.append(f"(Stopped, {detail})")  # the technical note, for support and the trace, goes last
        return "\n\n".join(parts)

    def __str__(self) -> str:
        return self.answer or self.render()


SHOW = 8  # facts listed in the answer; the structured result keeps them all


def call_label(tool: str, arguments: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return f"{tool}({args})"


def preview(data: Any, limit: int = 160) -> str:
    """The data as compact JSON, cut at `limit` characters (the structured result keeps it whole)."""
    text = json.dumps(data, ensure_ascii=False, separators=(", ", ": "), default=str)
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + " … (cut here; the full data is in the structured result)"
