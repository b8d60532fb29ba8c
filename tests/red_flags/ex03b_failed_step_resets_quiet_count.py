"""Red flag: a step whose calls all failed starts the no-progress count again.

A failure brings nothing new. Counting it as a fresh start lets a loop hide behind errors: empty,
failed, empty, failed... and no two quiet steps ever come in a row.
"""
from pathlib import Path

# The solution, with one piece replaced below.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))

_Solved = LoopGuard  # noqa: F821  (defined by the solution above)


class LoopGuard(_Solved):
    def after_step(self, episode, messages):
        if not self._step_ok:
            self.quiet_steps = 0  # the flaw: nothing succeeded, and the count starts again
        return super().after_step(episode, messages)


def make_guard(episode):
    return LoopGuard(episode, **THRESHOLDS.get(episode.scenario.intent, THRESHOLDS["general"]))  # noqa: F821
