"""Red flag: any successful call counts as progress.

"The tool returned 200, so it worked." An empty result is a success with nothing in it: a model that
rephrases a search that finds nothing looks busy and productive, step after step.
"""
import itertools
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))

_values = leaf_values
_results = itertools.count()


def leaf_values(payload):
    return _values(payload) or {f"(result #{next(_results)})"}
