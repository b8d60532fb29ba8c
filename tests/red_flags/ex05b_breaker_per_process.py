"""Red flag: the circuit breaker's state kept in module-level dicts, for every executor of the process.

A breaker shared across requests can be a deliberate design, but then it needs a way back (half-open after
a cool-down). Here a tool withdrawn in one user's run stays withdrawn for every later run, and failures
counted for one user add up with the next user's.
"""
from pathlib import Path

exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex05b_errors_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex05b_errors_stretch.py", "exec"))

_Solved = ToolErrorExecutor  # noqa: F821  (defined by the solution above)
_FAILURES, _WITHDRAWN = {}, set()  # the flaw: one breaker state for the whole process


class ToolErrorExecutor(_Solved):
    def __init__(self, episode, *args, **kwargs):
        super().__init__(episode, *args, **kwargs)
        self.failures, self.withdrawn = _FAILURES, _WITHDRAWN


def make_executor(episode):
    return ToolErrorExecutor(episode)
