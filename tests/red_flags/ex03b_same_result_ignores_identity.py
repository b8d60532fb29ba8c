"""Red flag: the same result from different arguments is always a rephrased search.

"Different arguments, same answer: the model is rephrasing." Four SKUs that are all in stock give the
same answer four times; they are four questions. Stopping a batch lookup is as bad as missing a loop.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))



def identity(info, arguments):  # every call asks about the same thing: only the result counts
    return ""
