"""Red flag: "P99 steps" computed as the mean. One 50-step run in a fleet of 3-step runs barely moves
a mean; the tail is what the alert is about."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex06_trace_diagnosis.py"))
     .get_code("solution"))


_fleet = fleet  # noqa: F821


def fleet(traces):  # noqa: F811
    traces = [load(t) for t in traces]  # noqa: F821
    out = _fleet(traces)
    steps = [sum(r["kind"] == "step" for r in records) for records in traces]
    out["p99_steps"] = sum(steps) / len(steps)  # the flaw
    return out
