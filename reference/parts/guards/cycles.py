"""The cycle rule: calls taking turns (A-B-A-B) with nothing in between that could change either answer
are one loop, even though no call follows its own twin. Turns that keep answering what they never answered
before (a Next button clicked and each new page extracted) are a walk, not a loop; a call taking turns with a
wait that answers nothing (a poll and its `sleep`) is judged by its own repeats (repeats.py, waits.py)."""
from __future__ import annotations

from typing import Optional

from . import detectors, feedback
from .feedback import Detection
from .state import Detector, GuardedCall, Memory
from .waits import printed_nothing

LEGITIMATE = """
name: two-builds-watched
title: Two moving builds checked in turn until both finish
user: Tell me when the builds of 9f3c and 7a1b are both done.
tools:
  - name: get_build
    description: The CI build of a commit.
    annotations: {readOnlyHint: true, openWorldHint: true}
    parameters: {type: object, properties: {commit: {type: string}}}
    rules:
      - when: {commit: 9f3c}
        results: [{data: {state: running}}, {data: {state: passed}}]
      - when: {commit: 7a1b}
        results: [{data: {state: queued}}, {data: {state: passed}}]
model:
  script:
    - call: {tool: get_build, args: {commit: 9f3c}}
    - call: {tool: get_build, args: {commit: 7a1b}}
    - call: {tool: get_build, args: {commit: 9f3c}}
    - call: {tool: get_build, args: {commit: 7a1b}}
    - answer: Both builds passed.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 5}
"""


class Cycle(Detector):
    """Calls taking turns (A-B-A-B) that answer nothing new, with nothing in between that could change either answer, are one loop."""

    pattern = "alternation"
    legitimate = LEGITIMATE

    def before_call(self, m: Memory, a: GuardedCall) -> Optional[Detection]:
        length = m.thresholds.alternation_length
        window = [*list(m.recent)[-(length - 1):], a] if length > 1 else [a]
        pair = detectors.alternation([x.action for x in window[:-1]], a.action, length)
        if pair is None or not all(m.still_stands(x, a) for x in window):
            return None  # a write, a "resource changed" error or a user message came in between
        if m.news_between(window[0], a):
            return None  # each turn answered what it never had: a walk through pages, not a loop
        if any(m.info(x.call.name).moves_by_itself or x.action in m.changing for x in window):
            return None  # answers that move are being watched, not looped on
        if any(printed_nothing(m, x) for x in window if x.ran):
            return None  # a call and a wait that answers nothing (a poll and its `sleep`): the call's repeats judge it
        return feedback.alternation(*pair, [x.step for x in window], length, list(m.tools), feedback.echo_of(m))
