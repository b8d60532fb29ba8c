"""Red flag: the regression case pins the bad run ("it reproduces the incident, so it is a test"). Its
expectation is what the broken loop did, so the broken loop passes it and a fix fails it."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex06_trace_diagnosis.py"))
     .get_code("solution"))



def regression_case(trace):  # noqa: F811
    return replay_scenario(trace)  # noqa: F821  (the flaw: the recorded expectation is kept)
