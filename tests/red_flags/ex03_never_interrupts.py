"""Red flag: the guard warns and warns, and never stops the run.

"I tell the model it is looping." A stubborn model ignores every warning; only the step limit ends the
run, after paying for every step.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py").read_text(encoding="utf-8"),
             "solutions/ex03_fingerprint_guard.py", "exec"))


def make_guard(episode):
    return LoopGuard(episode, **{**THRESHOLDS["general"], "interventions": 10**9})
