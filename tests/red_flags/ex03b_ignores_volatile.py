"""Red flag: every identical call is a loop, even polling.

"Same tool, same arguments: loop." Polling a job status repeats the call by design; the result
changes (running 40%, 80%, done), which is progress.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))


class EveryRepeatIsALoop(LoopGuard):  # noqa: F821  (defined by the solution above)
    def may_have_moved(self, tool, action):
        return False  # never run a repeat to see its answer


def make_guard(episode):
    guard = EveryRepeatIsALoop(episode, **THRESHOLDS.get(episode.scenario.intent, THRESHOLDS["general"]))
    guard.volatile = set()
    return guard
