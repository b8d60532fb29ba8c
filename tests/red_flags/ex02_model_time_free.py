"""Red flag: the time budget watches the tools and assumes the next model request is instant.

"The model answers in a second, the tools are what is slow." A large model on a long context can
take tens of seconds per request: a budget that adds nothing for the next request starts one it
has no time left for.
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
        return Spend(estimate.steps, estimate.tokens, 0.0, estimate.cost_usd)  # noqa: F821  # the flaw: no model time
