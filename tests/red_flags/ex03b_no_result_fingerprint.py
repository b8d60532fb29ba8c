"""Red flag: only actions are fingerprinted, never results.

"I detect repeated calls." Different queries that keep returning the same document are a loop that no
action fingerprint can see.
"""
import itertools
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))

_results = itertools.count()


def result_fingerprint(content, metadata=()):
    return str(next(_results))  # every result looks new
