"""Red flag: one warning per loop pattern ("each detector intervenes once, then stops").

A model warned for repeating a call that then rephrases a search returning the same thing is still
looping: it has had its warning. Counting warnings per pattern gives it a fresh one for every new
way of going round (four patterns: four warnings before any stop).
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py"))
     .get_code("solution"))

_Solved = LoopGuard  # noqa: F821  (defined by the solution above)


class LoopGuard(_Solved):
    def flag(self, call, pattern, *args, **kwargs):
        counts = self.__dict__.setdefault("per_pattern", {})
        self.strikes = counts.get(pattern, 0)  # the flaw: each pattern keeps its own count
        verdict = super().flag(call, pattern, *args, **kwargs)
        counts[pattern] = self.strikes
        return verdict
