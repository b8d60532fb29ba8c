"""A fleet of judged conversations, summed up as they stream by: `FleetSummary.add(row)` for each
`--json` object (shadow.py's `Judged.to_json()`), `merge` to join the summaries of separate workers or
shards. Memory holds counts and the worst few conversations, never the fleet.

    conversations, calls            how many were read
    loop rate                       conversations with at least one call flagged (intervene or stop)
    repeated-call rate              calls that repeat an earlier call of their conversation (the same tool
                                    and canonical arguments), flagged or not
    after-flag share                calls made from a conversation's first flag on: what a guard would have saved
    shapes                          conversations per shape (the rule of their first flag; clean if none)
    worst                           the conversations with the most calls after their first flag
"""
from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

WORST = 10


@dataclass
class FleetSummary:
    conversations: int = 0
    calls: int = 0
    flagged_conversations: int = 0
    flagged_calls: int = 0
    repeated_calls: int = 0
    calls_after_flag: int = 0
    tokens: int = 0
    tokens_after_flag: int = 0
    problems: int = 0
    verdicts: Counter = field(default_factory=Counter)
    shapes: Counter = field(default_factory=Counter)
    worst: list[tuple[int, int, str, int, Any]] = field(default_factory=list)  # a min-heap of the worst

    def add(self, row: dict[str, Any]) -> None:
        calls = row.get("calls") or []
        self.conversations += 1
        self.calls += len(calls)
        self.problems += len(row.get("problems") or [])
        flagged = [c for c in calls if c.get("verdict") != "run"]
        self.flagged_calls += len(flagged)
        self.flagged_conversations += bool(flagged)
        self.repeated_calls += sum(1 for c in calls if c.get("evidence"))
        self.verdicts.update(c.get("verdict") for c in calls)
        self.shapes[row.get("shape", "clean")] += 1
        after = int(row.get("calls_after_flag") or 0)
        self.calls_after_flag += after
        self.tokens += int(row.get("tokens") or 0)
        self.tokens_after_flag += int(row.get("tokens_after_flag") or 0)
        if after:
            item = (after, int(row.get("tokens_after_flag") or 0), str(row.get("source")),
                    int(row.get("conversation") or 0), row.get("id"))
            (heapq.heappush if len(self.worst) < WORST else heapq.heappushpop)(self.worst, item)

    def merge(self, other: "FleetSummary") -> "FleetSummary":
        for name in ("conversations", "calls", "flagged_conversations", "flagged_calls", "repeated_calls",
                     "calls_after_flag", "tokens", "tokens_after_flag", "problems"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.verdicts.update(other.verdicts)
        self.shapes.update(other.shapes)
        for item in other.worst:
            (heapq.heappush if len(self.worst) < WORST else heapq.heappushpop)(self.worst, item)
        return self

    def to_dict(self) -> dict[str, Any]:
        def rate(n: int, d: int) -> float:
            return n / d if d else 0.0
        return {
            "conversations": self.conversations, "calls": self.calls, "problems": self.problems,
            "loop_rate": rate(self.flagged_conversations, self.conversations),
            "repeated_call_rate": rate(self.repeated_calls, self.calls),
            "after_flag_share": rate(self.calls_after_flag, self.calls),
            "tokens": self.tokens, "tokens_after_flag": self.tokens_after_flag,
            "verdicts": dict(self.verdicts), "shapes": dict(self.shapes.most_common()),
            "worst": [{"source": s, "conversation": n, "id": i, "calls_after_flag": a, "tokens_after_flag": t}
                      for a, t, s, n, i in sorted(self.worst, reverse=True)],
        }


def summarise(rows: Iterable[dict[str, Any]]) -> FleetSummary:
    fleet = FleetSummary()
    for row in rows:
        fleet.add(row)
    return fleet


def fleet_lines(s: dict[str, Any]) -> list[str]:
    """The fleet in a few lines of text, for the terminal."""
    lines = [f"conversations {s['conversations']:,}, calls {s['calls']:,}, problems {s['problems']:,}",
             f"loop rate {s['loop_rate']:.1%} (conversations with a call flagged), repeated calls "
             f"{s['repeated_call_rate']:.1%}, calls after a flag {s['after_flag_share']:.1%} "
             f"({s['tokens_after_flag']:,} of {s['tokens']:,} tokens)",
             "shapes: " + ", ".join(f"{k} {v:,}" for k, v in s["shapes"].items())]
    if s["worst"]:
        lines.append("worst: " + "; ".join(f"{w['source']}#{w['conversation']}"
                                           + (f" ({w['id']})" if w["id"] is not None else "")
                                           + f" {w['calls_after_flag']} call(s) after the flag" for w in s["worst"][:5]))
    return lines
