"""What the loop guard tells the model: the evidence it saw, the options left, and what to do now.

Every intervention is a structured tool result (`"error_type": "loop_detected"`) answering the call
that was caught, so the history stays protocol-valid; an argument the guard will not send gets an
actionable `invalid_argument` error instead.

The words never name the behaviour they warn against ("do not call it again" plants "call it again"): the
evidence says what happened, the instruction says what to do instead, and both stay short, because every
later request re-reads them. Field names an API defines (`retryable`) stay.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ...core.messages import ToolCall, ToolMessage
from ...core.toolresult import to_json
from . import detectors
from .checks import ArgumentProblem
from ...core.canonical import show
from .state import GuardedCall, Memory


@dataclass
class Detection:
    pattern: str
    evidence: str
    count: int
    options: list[str]
    instruction: str


def repeated_call(action: str, earlier: int, before: Sequence[GuardedCall], current: GuardedCall,
                  tools: Sequence[str], echo: str, ran_again: bool = False) -> Detection:
    """`action` again, after `earlier` attempts (`before`, in order); `current` is this attempt.

    `ran_again`: its answer might have moved, so the repeat ran, and it answered what it answered before (the
    feedback takes that answer's place: the model never reads one answer twice)."""
    ran = [a for a in before if a.ran]
    spellings = list(dict.fromkeys(a.call.arguments for a in [*before[-4:], current]))
    steps = [str(a.step) for a in before]
    evidence = (f"{show(action)} was already {'run' if ran else 'attempted'} {times(earlier)} in this run "
                f"(step {', '.join(steps if len(steps) <= 6 else [*steps[:3], '...', *steps[-2:]])}); "
                f"this is attempt {earlier + 1}.")
    if len(spellings) > 1:
        evidence += (" The arguments were written differently but mean the same call: "
                     + "; ".join(spellings[:4]) + ".")
    shown = next((a.step for a in ran if a.result == ran[-1].result), None) if ran else None  # where the model read it
    if ran_again:
        evidence += f" It ran again and answered as at step {shown}." if ran else " It ran again and answered as before."
    elif ran:
        evidence += f" Its result is already in the conversation (step {shown})."
    evidence += echo
    tool = action.split(" ", 1)[0]
    return Detection("repeated_call", evidence, earlier + 1, options(tools, tool, ran=bool(ran)),
                     "Answer the user now with what you have, or take one of the options. "
                     "If this goes on, the run stops.")


def same_turn(action: str, step: int, tools: Sequence[str]) -> Detection:
    """`action` asked for twice in one turn (step `step`): the second one is answered without running it."""
    tool = action.split(" ", 1)[0]
    evidence = (f"{show(action)} was asked for twice in the same turn (step {step}): the first call answers it; "
                "this copy was not run.")
    return Detection("repeated_call", evidence, 2, options(tools, tool, ran=True),
                     f"Use the result of the first {tool} call of this turn, or answer the user. "
                     "If this goes on, the run stops.")


def alternation(a: str, b: str, steps: Sequence[int], length: int, tools: Sequence[str], echo: str) -> Detection:
    """A-B-A-B: the last `length` calls (asked for in `steps`) alternate between actions `a` and `b`."""
    evidence = (f"{length} calls in a row took turns between {show(a)} and {show(b)} "
                f"(steps {', '.join(map(str, steps))}), and nothing between them could change their answers."
                + echo)
    return Detection("alternation", evidence, length,
                     options(tools, a.split(" ", 1)[0], b.split(" ", 1)[0], ran=True),
                     "Answer the user with what both results say, or use a different tool. "
                     "If this goes on, the run stops.")


def same_result(tool: str, actions: Sequence[str], tools: Sequence[str]) -> Detection:
    """Different calls of `tool` (`actions`) returned one result."""
    evidence = (f"{len(actions)} {tool} calls worded differently returned the same result: "
                + "; ".join(show(a) for a in actions) + ". The wording does not change what this tool knows.")
    return Detection("same_result", evidence, len(actions), options(tools, tool, ran=True, rephrase=True),
                     "Answer the user from the result you have (it is included here as `result`), or use a "
                     "different tool. If this goes on, the run stops.")


def no_progress(run: int, recent: Sequence[GuardedCall], tools: Sequence[str]) -> Detection:
    """`run` steps without a new value; `recent` are the calls that ran in them."""
    evidence = (f"The last {run} steps brought no new information (no new value, and no new kind of error): "
                + "; ".join(show(a.action) for a in recent[-4:]) + ".")
    tool = recent[-1].action.split(" ", 1)[0] if recent else ""
    return Detection("no_progress", evidence, run, options(tools, tool, ran=False, rephrase=True),
                     "Tell the user what you tried and what you found (or that nothing was found), and what "
                     "they can do next. If this goes on, the run stops.")


def options(tools: Sequence[str], *caught: str, ran: bool, rephrase: bool = False) -> list[str]:
    """The ways out: answer now, another of the run's `tools` than the `caught` ones, a real change."""
    others = [name for name in tools if name not in caught]
    # short on purpose: every later request re-reads what the model was told
    out = ["answer now with the results you have" if ran else "answer now: what you tried, found, and what next"]
    if others:
        out.append("use another tool: " + ", ".join(others))
    out.append("change what you ask, not how it is spelt" if not rephrase else "ask the user to narrow the request")
    return out


def echo_of(m: Memory) -> str:
    """The echo note for the model's own last two texts, as the guard has read them."""
    return echo(m.read.said, m.thresholds.echo_similarity)


def echo(said: Sequence[Optional[str]], similarity: float) -> str:
    """A note when the model's last two texts (`said`) say the same: supporting evidence, never a trigger."""
    score = detectors.echo(said, similarity)
    return "" if score is None else f" Your last two messages are {score:.0%} alike."


def intervention(d: Detection, *, not_run: bool, stopping: Optional[str] = None) -> dict[str, Any]:
    """The `loop_detected` body; `stopping` (why the run ends now) replaces the instruction."""
    return {"ok": False, "error_type": "loop_detected", "pattern": d.pattern, "evidence": d.evidence,
            "count": d.count, "options": d.options, "instruction": stopping or d.instruction,
            "retryable": False, "not_run": not_run}


def another_in_turn(d: Detection, *, not_run: bool) -> dict[str, Any]:
    """A second flag in the same turn: short, because the first flag's note already says it all (every
    later request re-reads what the model was told, and a note repeated per call costs per call)."""
    return {"ok": False, "error_type": "loop_detected", "pattern": d.pattern, "retryable": False,
            "not_run": not_run, "message": "See the note on the first call flagged in this turn."}


def invalid_argument(call: ToolCall, problems: Sequence[ArgumentProblem]) -> ToolMessage:
    """An actionable error for arguments the guard will not send: what is wrong, what to use instead."""
    first = problems[0]
    # not `error_body`: the argument comes before the message here, and the text the model reads stays as it was
    body = {"ok": False, "error_type": "invalid_argument", "retryable": False,
            "argument": first.argument, "value": first.value,
            "message": " ".join(p.message for p in problems),
            "suggestions": sorted({s for p in problems for s in p.suggestions}),
            "instruction": f"Call {call.name} again with corrected {', '.join(p.argument for p in problems)}, "
                           f"or ask the user which {'date' if all(p.kind == 'date' for p in problems) else 'airport'} they mean. "
                           "The call was not run."}
    return ToolMessage(call.id, to_json(body), is_error=True)


def times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")
