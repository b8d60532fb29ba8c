"""Red flag: a result with a fresh timestamp is a new result.

"The answer changed, so it is progress." A stuck job answered with a new `checked_at` and
`request_id` is still stuck; compared whole, every answer looks new and the guard waits for ever.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03b_guard_stretch.py").read_text(encoding="utf-8"),
             "solutions/ex03b_guard_stretch.py", "exec"))



def without_metadata(payload, declared=()):
    return payload
