"""Red flag: the budget is checked only against what was already spent ("if budget.exhausted(): stop").

The request that crosses the limit is sent anyway, and it is the most expensive one of the run: the
context only grows. The run overshoots by a whole step."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def before_request(self, episode, messages, step):
        ledger = episode.ledger  # the flaw: only what was already spent, never the request about to be sent
        if self.max_steps is not None and len(ledger.steps) >= self.max_steps:
            return Stop(StopReason.MAX_STEPS, f"step limit {self.max_steps}")  # noqa: F821
        if self.max_run_tokens is not None and ledger.usage.total_tokens > self.max_run_tokens:
            return Stop(StopReason.TOKEN_BUDGET, f"token budget {self.max_run_tokens:,} exhausted")  # noqa: F821
        if self.max_cost_usd is not None and ledger.cost_usd > self.max_cost_usd:
            return Stop(StopReason.COST_BUDGET, f"cost budget ${self.max_cost_usd} exhausted")  # noqa: F821
        if self.max_seconds is not None and episode.clock.elapsed > self.max_seconds:
            return Stop(StopReason.TIME_BUDGET, f"time budget {self.max_seconds} s exhausted")  # noqa: F821
        return None

    def before_tool(self, episode, call):
        return None
