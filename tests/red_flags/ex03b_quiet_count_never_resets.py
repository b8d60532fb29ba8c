"""Red flag: the no-progress counter counts quiet steps in the whole run, not in a row.

"Stop after two steps that found nothing." Any long run has a few empty searches between good
ones: a counter that never goes back to zero stops runs that are making progress.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py"))
     .get_code("solution"))

_Solved = LoopGuard  # noqa: F821  (defined by the solution above)


class LoopGuard(_Solved):
    def after_step(self, episode, messages):
        if self._step_ok and not self._step_new:
            self.quiet_steps += 1  # the flaw: a step that brought something new does not reset the count
        self._step_ok = self._step_flagged = False
        self._step_new = 0
        trip, self.pending = self.pending, None
        return trip
