"""Red flag: only the model's output is counted ("tokens = what the model generated").

The input is most of the bill: the whole history and the tool schemas are sent again with every
request, and they grow with every step. A budget on output tokens barely moves."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def spent(self, episode):
        ledger = episode.ledger  # the flaw: output tokens only
        return Spend(len(ledger.steps), ledger.usage.output_tokens, episode.clock.elapsed,  # noqa: F821
                     ledger.pricing.cost(Usage(0, ledger.usage.output_tokens)))  # noqa: F821

    def next_request(self, episode, messages):
        usage = Usage(0, self.output_reserve)  # noqa: F821  # the flaw: the request itself is not counted
        seconds = max((s.model_seconds for s in episode.ledger.steps), default=0.0)
        return Spend(1, usage.total_tokens, seconds, episode.ledger.pricing.cost(usage))  # noqa: F821
