"""Red flag: the duplicate rate counts tool attempts. A call that the loop retried in code (a 429, a
timeout) shows twice in the tool records, and a healthy retry policy reads as the model repeating itself."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex06_trace_diagnosis.py"))
     .get_code("solution"))


_fleet = fleet  # noqa: F821


def fleet(traces):  # noqa: F811
    traces = [load(t) for t in traces]  # noqa: F821
    out = _fleet(traces)
    calls = duplicates = 0
    for records in traces:
        seen = set()
        for r in records:
            if r["kind"] == "tool":  # the flaw: every attempt counted as a call
                key = (r["name"], json.dumps(r["arguments"], sort_keys=True))
                calls += 1
                duplicates += key in seen
                seen.add(key)
    out["duplicate_call_rate"] = duplicates / calls if calls else 0.0
    return out


import json  # noqa: E402
