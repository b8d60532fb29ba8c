"""Red flag: the step limit trusts the loop's own count (`step`) instead of the run's books.

A loop that counts its steps per user turn, or restarts its counter after a retry, passes a `step`
that says less than the run has spent; a budget that believes it never trips.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def before_request(self, episode, messages, step):
        if self.max_steps is not None and step >= self.max_steps:  # the flaw: the caller's count, not the ledger's
            return Stop(StopReason.MAX_STEPS,  # noqa: F821
                        f"step limit: {step} steps made, the limit is {self.max_steps}")
        limit, self.max_steps = self.max_steps, None
        try:
            return super().before_request(episode, messages, step)
        finally:
            self.max_steps = limit
