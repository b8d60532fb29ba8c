"""Red flag: one guard per intent, built once and kept in a module-level dict.

"The thresholds only depend on the intent, so build each guard once." The guard is also the run's memory
(every call, every result seen): the next run of the same intent starts with the last one's history, and
a call the new user makes for the first time is "a repeat".
"""
from pathlib import Path

exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py").read_text(encoding="utf-8"),
             "solutions/ex03_fingerprint_guard.py", "exec"))

_GUARDS = {}  # the flaw: intent -> the guard of the first run with that intent


def make_guard(episode):
    intent = episode.scenario.intent
    if intent not in _GUARDS:
        _GUARDS[intent] = LoopGuard(episode, **THRESHOLDS.get(intent, THRESHOLDS["general"]))  # noqa: F821
    return _GUARDS[intent]
