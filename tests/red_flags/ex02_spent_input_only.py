"""Red flag: what was spent counts the input tokens only ("the prompt is the big part").

The input is most of the bill, but the answers are billed too, at the higher rate: a token budget
on input alone lets every run go further than its limit says.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def spent(self, episode):
        ledger = episode.ledger  # the flaw: input tokens only
        return Spend(len(ledger.steps), ledger.usage.input_tokens, episode.clock.elapsed, ledger.cost_usd)  # noqa: F821
