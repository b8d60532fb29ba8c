"""Red flag: a next-steps table that covers the stops seen in testing, indexed without a default.

The rare stops (a provider error, every tool's circuit open) are the ones that reach production
untested: `NEXT[reason]` raises KeyError inside the stop path, and the user gets a crash instead of
a degraded answer.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex04_degraded_output.py"))
     .get_code("solution"))


class _Table(dict):
    def get(self, reason, default=None):
        return self[reason]  # the flaw: NEXT[reason], no default


NEXT = _Table((reason, steps) for reason, steps in NEXT.items()  # noqa: F821  (the solution's table, minus the
              if reason not in (StopReason.SAME_RESULT, StopReason.CIRCUIT_OPEN, StopReason.ERROR))  # noqa: F821  rare)
