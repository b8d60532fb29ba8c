"""Red flag: the result fingerprint drops timestamps and request ids, but not what the tool declares.

A tool's definition can name its own metadata (`served_by`, a cache age): keys that change on every
call without saying anything new. A fingerprint that ignores them sees two answers where there is one,
and a search rephrased until the end of time never returns "the same result".
"""
from pathlib import Path

# The solution, with one piece replaced below.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))

_solved_fingerprint = result_fingerprint  # noqa: F821  (defined by the solution above)


def result_fingerprint(content, metadata=()):
    return _solved_fingerprint(content)  # the flaw: the tool's declared metadata is left in
