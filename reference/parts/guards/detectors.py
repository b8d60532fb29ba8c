"""Lesson 3: the small pure functions the detectors (registry.py) share, over what the run has done so far.

Counting identical calls is the first signal, not the only one:

    repeated_call   the same (normalised) action again, anywhere in the run, not only back to back
    alternation     A-B-A-B: two actions taking turns, each waiting for the other
    same_result     different arguments, the same result: rephrasing a search that cannot say more
    no_progress     N steps in a row that brought no new entity or value (empty results count as nothing)
    echo            the model's own words barely change from one step to the next (a supporting signal)

Repetition is not always a loop. Paging asks for new arguments (a new fingerprint); polling repeats the
action but gets a new result each time (progress). These functions are fed fingerprints and per-step
counts of new values; which earlier calls still count (state epochs) is the detectors' business.
"""
from __future__ import annotations

import difflib
from typing import Mapping, Optional, Sequence

from ...core.canonical import clean_text


def repeated_call(history: Sequence[str], action: str, allowed_runs: int = 1) -> Optional[int]:
    """How many times `action` was already attempted, when that is `allowed_runs` or more; else None.

    Counts the whole history, not only the previous call: A-B-A is a repeat of A."""
    earlier = sum(1 for past in history if past == action)
    return earlier if earlier >= allowed_runs else None


def alternation(history: Sequence[str], action: str, length: int = 4) -> Optional[tuple[str, str]]:
    """(A, B) when the last `length` actions, this one included, go A-B-A-B with A != B."""
    window = [*history[-(length - 1):], action] if length > 1 else [action]
    if len(window) < length or length < 3:
        return None
    a, b = window[0], window[1]
    if a == b:
        return None
    if all(x == (a if i % 2 == 0 else b) for i, x in enumerate(window)):
        return a, b
    return None


def same_result(actions_by_result: Mapping[str, Sequence[str]], result: str, threshold: int = 2) -> Optional[list[str]]:
    """The distinct actions that returned `result`, when there are `threshold` or more of them."""
    actions = list(dict.fromkeys(actions_by_result.get(result, ())))
    return actions if len(actions) >= threshold else None


def no_progress(new_per_step: Sequence[int], steps: int = 2) -> Optional[int]:
    """The length of the current run of steps that brought nothing new, when it is `steps` or more."""
    run = 0
    for count in reversed(new_per_step):
        if count:
            break
        run += 1
    return run if run >= steps else None


def similarity(a: str, b: str) -> float:
    """0..1, how alike two texts are (difflib's ratio over normalised, case-folded text)."""
    a, b = clean_text(a).casefold(), clean_text(b).casefold()
    if not a or not b:
        return 0.0
    return difflib.SequenceMatcher(None, a, b).ratio()


def echo(texts: Sequence[Optional[str]], threshold: float = 0.9) -> Optional[float]:
    """The similarity of the model's last two texts, when it is `threshold` or more."""
    said = [t for t in texts if t and t.strip()]
    if len(said) < 2:
        return None
    score = similarity(said[-2], said[-1])
    return score if score >= threshold else None
