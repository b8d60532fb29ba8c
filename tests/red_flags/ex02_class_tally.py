"""Red flag: the budget keeps its own count of requests, in a mutable class attribute.

`made = {"requests": 0}` on the class is one dict for every Budget ever built: each run in a fresh process
counts right, but in a service the second run starts with the first one's requests spent. (The books are
the harness's, `episode.ledger`: a second count drifts, and a shared one drifts across users.)
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    made = {"requests": 0}  # the flaw: a class attribute, shared by every instance

    def before_request(self, episode, messages, step):
        if self.max_steps is not None and self.made["requests"] >= self.max_steps:
            return Stop(StopReason.MAX_STEPS, f"step limit: {self.made['requests']} requests made")  # noqa: F821
        trip = super().before_request(episode, messages, step)
        if trip is None:
            self.made["requests"] += 1
        return trip
