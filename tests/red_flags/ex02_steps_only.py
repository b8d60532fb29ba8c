"""Red flag: the step count is the only budget ("we set max_steps to 10, that's our limit").

One step can cost a few hundred tokens or tens of thousands; a slow tool can take a minute. Counting
steps says nothing about either."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def before_request(self, episode, messages, step):
        if self.max_steps is not None and len(episode.ledger.steps) >= self.max_steps:
            return Stop(StopReason.MAX_STEPS, f"step limit: {self.max_steps} steps")  # noqa: F821
        return None  # the flaw: tokens, time and cost are never looked at

    def before_tool(self, episode, call):
        return None
