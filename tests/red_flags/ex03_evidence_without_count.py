"""Red flag: the intervention says "you already did this" without saying how often.

The count is the evidence: "attempt 2" tells the model (and whoever reads the trace) that this is
a loop and not a retry after a change, and where the threshold stands.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py"))
     .get_code("solution"))

_Solved = LoopGuard  # noqa: F821  (defined by the solution above)


class LoopGuard(_Solved):
    def flag(self, call, pattern, evidence, *args, **kwargs):
        if pattern == "repeated_call":  # the flaw: the evidence has no count
            evidence = f"{self.history[-1]} was already attempted; its result is already in the conversation"
        return super().flag(call, pattern, evidence, *args, **kwargs)
