"""Red flag: a time limit of zero still sends the first request ("it was expected to take no time").

No request takes no time: with nothing left of a limit, nothing starts. The estimate of a first
request, or of a tool never run, is zero only because nothing has been measured yet.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex02_budget.py"))
     .get_code("solution"))

_Solved = Budget  # noqa: F821  (defined by the solution above)


class Budget(_Solved):
    def before_request(self, episode, messages, step):
        if self.max_seconds is not None and self.spent(episode).seconds + self.next_request(episode, messages).seconds \
                <= self.max_seconds:  # the flaw: "it fits" when nothing is left and nothing is expected
            limit, self.max_seconds = self.max_seconds, None
            try:
                return super().before_request(episode, messages, step)
            finally:
                self.max_seconds = limit
        return super().before_request(episode, messages, step)

    def before_tool(self, episode, call):
        expected = self.tool_seconds(episode, call.name)
        if self.max_seconds is not None and episode.clock.elapsed + expected <= self.max_seconds:
            return None  # the flaw, again: a tool never run is taken to be free
        return super().before_tool(episode, call)
