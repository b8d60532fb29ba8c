"""Red flag: "never report a fact twice", remembered in a module-level set.

The set outlives the run: in a service, the second user whose run stops is told nothing was obtained about
what the first user's run already found, and the answer leaves out what this run did find.
"""
import json
from pathlib import Path

exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex04_degraded_output.py").read_text(encoding="utf-8"),
             "solutions/ex04_degraded_output.py", "exec"))

_solved_obtained_from = obtained_from  # noqa: F821  (defined by the solution above)
_REPORTED = set()  # the flaw: every fact reported so far, in this process


def obtained_from(episode):
    fresh = []
    for fact in _solved_obtained_from(episode):
        key = json.dumps([fact.tool, fact.arguments, fact.data], sort_keys=True, default=str)
        if key not in _REPORTED:
            _REPORTED.add(key)
            fresh.append(fact)
    return fresh
