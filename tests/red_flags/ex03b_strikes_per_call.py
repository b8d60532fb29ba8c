"""Red flag: every detected call is a strike, even inside one turn.

"Three repeats, three strikes." The calls of one assistant message were written together, before the
model could read any warning: counting each of them stops a run that would have listened.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))


_solution_flag = LoopGuard.flag


def _flag_per_call(self, call, pattern, evidence, instruction, result=None, not_run=True):
    self._step_flagged = False  # forget that this turn was already warned
    return _solution_flag(self, call, pattern, evidence, instruction, result, not_run)


LoopGuard.flag = _flag_per_call
