"""Red flag: "tomorrow" is resolved with the machine's clock (`datetime.date.today()`).

The run's date is the scenario's (the user's, the simulated clock's), not the server's: on a replay,
in another time zone or just after midnight, "tomorrow" and the date it stands for stop matching,
and a disguised repeat runs again.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py"))
     .get_code("solution"))

_fingerprint = fingerprint  # noqa: F821  (defined by the solution above)


def fingerprint(tool, arguments, schema, today):
    return _fingerprint(tool, arguments, schema, dt.date.today())  # noqa: F821  # the flaw: the machine's date
