"""Red flag: one set of thresholds for every task ("two identical calls is a loop, full stop").

A lookup that asks the same thing twice is looping; a troubleshooting run that checks a service
again after restarting it is doing its job. Thresholds belong to the task's intent.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py"))
     .get_code("solution"))


def make_guard(episode):
    return LoopGuard(episode)  # noqa: F821  # the flaw: the scenario's intent is never read
