"""Red flag: the repeat runs once more, and its unchanged answer goes to the model as it is.

"I let the re-check run, then it is the model's business." The model reads the same answer again, learns
nothing, and asks again: nothing is flagged until the answer is known, and the model is never told.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py"))
     .get_code("solution"))

_Solved = LoopGuard  # noqa: F821  (defined by the solution above)


class LoopGuard(_Solved):
    def after_result(self, episode, call, result):
        action = self.actions.get(call.id)
        if action is not None:
            self.answers.setdefault(action, []).append((not result.is_error, result.content))
        return result  # the flaw: the same answer is never compared, never replaced
