"""Red flag: a turn is told by its last call id.

"The turn changes when the call ids change." A turn is one model answer (one assistant message). A
faulty model may send the call ids of its last answer again: with the id-based check its new answer
is taken for the old turn, and a poll it repeats there is refused as "asked twice in this turn".
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))


_solution_before_call = LoopGuard.before_call


def _before_call_by_id(self, episode, call, messages):
    turn = next(m for m in reversed(messages) if isinstance(m, AssistantMessage))
    if self._turn is not None and turn.tool_calls[-1].id == self._last_call_id:
        self._turn = turn  # the same last call id: taken for the same turn
    return _solution_before_call(self, episode, call, messages)


LoopGuard.before_call = _before_call_by_id
