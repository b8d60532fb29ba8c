"""Red flag: the cost estimate prices every token at the input rate ("tokens x price").

Output tokens cost several times as much as input tokens (here 10 against 2.5 dollars per million).
A budget that prices the answer it reserves at the input rate underestimates every request.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def next_request(self, episode, messages):
        estimate = super().next_request(episode, messages)
        cost = episode.ledger.pricing.cost(Usage(estimate.tokens, 0))  # noqa: F821  # the flaw: all at the input rate
        return Spend(estimate.steps, estimate.tokens, estimate.seconds, cost)  # noqa: F821
