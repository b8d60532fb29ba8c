"""Red flag: a loop is "the same call twice in a row". The classifier compares each call with the one
before it only, so a run that goes round two tools (A-B-A-B) reads as healthy."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex06_trace_diagnosis.py"))
     .get_code("solution"))



def shape(trace):  # noqa: F811
    calls = calls_of(load(trace))  # noqa: F821
    errors = answered = 0
    for before, call in zip([None] + calls, calls):
        answered += call.status != "-"
        errors += call.status == "error"
        if errors >= 2 and errors * 2 >= answered:
            return "error_storm"
        if before is not None and before.fingerprint == call.fingerprint and before.result == call.result:
            return "repeat"  # the flaw: only back-to-back repeats are seen
    return "healthy"
