"""Lesson 3: loop guards that intervene before they interrupt.

    fingerprint.py  normalised action fingerprints (schema-aware, at any depth; dates; airports)
    dates.py        any unambiguous date spelling on the simulated clock (python-dateutil); 01/02 is ambiguous
    airports.py     IATA codes to metropolitan areas; actionable errors, never a guess
    metro_codes.py  the metropolitan areas: IATA's list plus a sourced supplement (EWR is in NYC)
    checks.py       arguments the guard will not send (airports, ambiguous dates), at any depth, with their path
    results.py      result fingerprints and news, without metadata (timestamps, request ids)
    traits.py       what a tool definition says: may it be polled, its identity arguments
    detectors.py    repeated call, A-B-A-B alternation, same result, no progress, echo
    state.py        what the guard remembers: each call (GuardedCall), the step (Step), the transcript read so far
    thresholds.py   how much repetition passes, per intent
    feedback.py     what the model is told: evidence, options, the `loop_detected` body
    guard.py        `LoopGuard.for_episode(episode)`: the `Guard` of reference/loops/guarded.py

    from reference.parts.guards import LoopGuard
    guarded_loop(episode, episode.limits.max_steps, Parts(guard=LoopGuard.for_episode(episode)))
"""
from ...core.canonical import canonical, fingerprint, show
from .guard import LoopGuard
from .results import result_fingerprint
from .thresholds import THRESHOLDS, Thresholds, thresholds_for

__all__ = ["LoopGuard", "THRESHOLDS", "Thresholds", "canonical", "fingerprint", "result_fingerprint", "show",
           "thresholds_for"]
