"""Red flag: the guard kills the run at the first detection.

"When I see a repeat I stop the agent." A model that would have answered after one message never gets
the chance: the user gets a stop instead of an answer.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py").read_text(encoding="utf-8"),
             "solutions/ex03_fingerprint_guard.py", "exec"))


def make_guard(episode):
    return LoopGuard(episode, **{**THRESHOLDS["general"], "interventions": 0})
