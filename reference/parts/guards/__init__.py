"""Lesson 3: loop guards that intervene before they interrupt.

    fingerprint.py  normalised action and result fingerprints (schema-aware; relative dates; airports)
    airports.py     IATA codes to metropolitan areas, from `airportsdata`; actionable errors, never a guess
    detectors.py    repeated call, A-B-A-B alternation, same result, no progress, echo
    state.py        what the guard remembers: each call it saw (GuardedCall), the current step (Step)
    feedback.py     what the model is told: evidence, options, the `loop_detected` body
    guard.py        `LoopGuard.for_episode(episode)`: the `Guard` of reference/loops/guarded.py

    from reference.parts.guards import LoopGuard
    guarded_loop(episode, episode.limits.max_steps, Parts(guard=LoopGuard.for_episode(episode)))
"""
from .fingerprint import canonical, fingerprint, result_fingerprint, show
from .guard import THRESHOLDS, LoopGuard, Thresholds, thresholds_for

__all__ = ["LoopGuard", "THRESHOLDS", "Thresholds", "canonical", "fingerprint", "result_fingerprint", "show",
           "thresholds_for"]
