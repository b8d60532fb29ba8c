"""Red flag: the time budget counts model latency only ("time = sum of the LLM calls' latency").

Tools run on the same clock as the model. A 20-second report is invisible to this budget, so a run
on slow tools sails past its time limit."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def spent(self, episode):
        ledger = episode.ledger
        model_seconds = sum(s.model_seconds for s in ledger.steps)  # the flaw: tool time is left out
        return Spend(len(ledger.steps), ledger.usage.total_tokens, model_seconds, ledger.cost_usd)  # noqa: F821

    def before_tool(self, episode, call):
        return None  # tools are "free"
