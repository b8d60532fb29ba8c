"""Red flag: every string is lower-cased before comparing.

"I normalise the arguments: strip and lower-case." Order A1234 and order a1234 may be two orders; only
the schema can say that a value is case-insensitive.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py").read_text(encoding="utf-8"),
             "solutions/ex03_fingerprint_guard.py", "exec"))

_canonical = canonical


def canonical(value, schema, today):
    value = _canonical(value, schema, today)
    return value.casefold() if isinstance(value, str) else value
