"""Red flag: no alternation detector ("a repeat anywhere in the run already covers A-B-A-B").

It does when every repeat is a loop. Where a second run of a call is legitimate (the troubleshoot
tier re-checks after a fix), A-B-A is no repeat, and a pair of tools waiting for each other goes
round until the repeat threshold, with the wrong diagnosis in the trace.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py"))
     .get_code("solution"))


def alternation(history, action):
    return None  # the flaw: only repeats are detected
