"""Shadow mode: the guarded loop's guard walks a recorded conversation and says, at each call, what it
would have done: `run`, `intervene` (feedback instead of the result) or `stop`, the rule, why, and the
evidence (the message indexes of the earlier calls it compared this one with).

It is the guarded loop with the model and tools replaced by the recording (reference/loops/guarded.py):
each assistant turn is appended, each call goes through `before_call`, each recorded result through
`after_result`, and `after_step` closes the turn before the next model turn or the user's next message.
User turns stay in the conversation the guard reads. An intervention is assumed delivered: the guard
sees its own feedback in place of the recorded result, so the next repeat of the same kind is a stop.
The recording carries on past a stop (the real agent did): the calls after the first flag are what a
guard would have saved.

`judge(conversation)` is a pure function (conversation in, verdicts out): a fleet maps it over shards.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..core.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from ..core import jsontext
from .guard_adapter import Said, ShadowGuard
from .logs.conversation import Conversation

_sorted = jsontext.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":"))  # made once
NO_DEFINITIONS = ("the log carries no tool definitions: what a call may change was decided from the tool's "
                  "name alone (no description, annotations or schema)")


@dataclass
class Judged:
    """One conversation's verdicts, in the `--json` form (docs/diagnose.md) plus what the reports need."""

    source: str
    conversation: int
    id: Optional[str]
    format: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    shape: str = "clean"
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    user_turns: list[int] = field(default_factory=list)  # message indexes of the user's turns
    first_flag: Optional[int] = None  # message index of the first call flagged
    calls_after_flag: int = 0  # calls made from the first flagged one on
    tokens_after_flag: int = 0
    tokens: int = 0
    tokens_estimated: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "conversation": self.conversation, "id": self.id, "format": self.format,
                "calls": self.calls, "shape": self.shape, "user_turns": self.user_turns, "first_flag": self.first_flag,
                "calls_after_flag": self.calls_after_flag, "tokens": self.tokens,
                "tokens_after_flag": self.tokens_after_flag, "tokens_estimated": self.tokens_estimated,
                "notes": self.notes, "problems": self.problems, "metadata": self.metadata}


def judge(c: Conversation) -> Judged:
    out = Judged(c.source, c.index, c.id, c.format, notes=list(c.notes), problems=list(c.problems),
                 metadata=c.metadata)
    names = [call.name for m in c.messages if isinstance(m, AssistantMessage) for call in m.tool_calls]
    if names and not c.tools:
        out.notes.append(NO_DEFINITIONS)
    guard = ShadowGuard(c.tools, names, intent=c.metadata.get("intent") if isinstance(
        c.metadata.get("intent"), str) else None)
    seen: list[Message] = []
    calls: dict[str, ToolCall] = {}
    verdicts: dict[str, dict[str, Any]] = {}
    answered: dict[str, ToolMessage] = {}  # calls the guard answered itself
    prints: dict[str, list[int]] = {}  # fingerprint -> message indexes of its calls
    last_turn: list[str] = []
    step_open = False

    def close_step() -> None:
        nonlocal step_open
        if step_open:
            said = guard.after_step(seen)
            if said and last_turn:  # a stop decided on a result: it ends the turn of the call that ran last
                _mark(verdicts[_last_ran(last_turn, answered)], said)
        step_open = False

    for m, at in zip(c.messages, c.positions):
        if isinstance(m, AssistantMessage):
            close_step()
            seen.append(m)
            last_turn = [call.id for call in m.tool_calls]
            step_open = bool(m.tool_calls)
            for call in m.tool_calls:
                entry = c.call_entries.get(call.id, at)
                arguments = _arguments(call)
                fp = f"{call.name} {_sorted(arguments) if isinstance(arguments, dict) else arguments}"
                record = {"message": entry, "tool": call.name, "arguments": arguments, "verdict": "run",
                          "rule": None, "why": "", "evidence": list(prints.get(fp, []))}
                if call.id in c.by_position:  # the log's ids did not say which result is this call's
                    record["paired"] = "by position"
                prints.setdefault(fp, []).append(entry)
                calls[call.id], verdicts[call.id] = call, record
                said = guard.before_call(call, seen)
                if said.action != "run":
                    _mark(record, said)
                    answered[call.id] = said.feedback  # type: ignore[assignment]
                out.calls.append(record)
        elif isinstance(m, ToolMessage):
            call = calls.get(m.call_id)
            if call is None:
                continue
            if m.call_id in answered:
                seen.append(answered[m.call_id])  # delivered: the model would have read the guard's feedback
                continue
            if m.call_id in c.unknown:  # not captured: the guard cannot judge what it does not see
                seen.append(m)
                continue
            said = guard.after_result(call, m)
            seen.append(said.feedback if said and said.feedback else m)
            if said:
                _mark(verdicts[m.call_id], said)
        else:
            close_step()
            seen.append(m)
            if isinstance(m, UserMessage) and at >= 0:
                out.user_turns.append(at)
    close_step()
    _totals(out, c)
    return out


def _mark(record: dict[str, Any], said: Said) -> None:
    if record["verdict"] != "stop":  # a stop is the strongest word; it is not taken back
        record.update(verdict=said.action, rule=said.rule, why=said.why)


def _last_ran(turn: list[str], answered: dict[str, ToolMessage]) -> str:
    ran = [i for i in turn if i not in answered]
    return ran[-1] if ran else turn[-1]


def _arguments(call: ToolCall) -> Any:
    try:
        return call.parsed_arguments()
    except ValueError:
        return call.arguments  # not a JSON object: the text as the model wrote it


def _totals(out: Judged, c: Conversation) -> None:
    """Shape, first flag, and what was spent from the first flag on (recorded tokens, else estimated)."""
    flagged = [r for r in out.calls if r["verdict"] != "run"]
    if flagged:
        out.shape = flagged[0]["rule"] or flagged[0]["verdict"]
        out.first_flag = flagged[0]["message"]
        out.calls_after_flag = sum(1 for r in out.calls if r["message"] >= out.first_flag)
    per_entry: dict[int, int] = dict(c.tokens)
    out.tokens_estimated = not per_entry
    if not per_entry:
        for m, at in zip(c.messages, c.positions):  # ~4 characters a token (reference/sim/tokens.py)
            if isinstance(m, AssistantMessage):
                size = len(m.text or "") + sum(len(x.name) + len(x.arguments) for x in m.tool_calls)
                per_entry[at] = per_entry.get(at, 0) + (size + 3) // 4
    out.tokens = sum(per_entry.values())
    if out.first_flag is not None:
        out.tokens_after_flag = sum(n for at, n in per_entry.items() if at >= out.first_flag)
