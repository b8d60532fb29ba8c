"""Lesson 3: how much repetition the guard lets pass, per intent, and the stop reason of each pattern."""
from __future__ import annotations

from dataclasses import dataclass

from ...core.result import StopReason


@dataclass(frozen=True)
class Thresholds:
    allowed_runs: int = 1  # attempts of one action (not polled) before the next one is a repeat
    alternation_length: int = 4  # A-B-A-B
    same_result_actions: int = 2  # distinct calls of one tool, asking the same question, returning one result
    same_answer_calls: int = 3  # calls of one tool getting the answer it already gave, nothing new in between
    no_progress_steps: int = 2  # steps in a row without a new entity or value
    interventions: int = 1  # turns with feedback before the guard stops the run
    echo_similarity: float = 0.9  # the model's own text: supporting evidence, never a trigger alone


# Per intent (the scenario's `intent`; the same names as lesson 2's tiers in reference/parts/budget.py).
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
