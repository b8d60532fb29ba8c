"""Red flag: a repeat is only a repeat when it comes right after itself.

"I compare each call with the previous one." A-B-A-B never repeats back to back: two tools that wait
for each other go round until the step limit.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py").read_text(encoding="utf-8"),
             "solutions/ex03_fingerprint_guard.py", "exec"))


def repeated(history, action, allowed_runs=1):
    return 1 if history and history[-1] == action else None


def alternation(history, action):
    return None
