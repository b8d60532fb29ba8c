"""Red flag: the replay writes the calls again without their ids ("the ids are random anyway"). The
script then pairs results with calls by position, and the case no longer plays the recorded run."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex06_trace_diagnosis.py"))
     .get_code("solution"))


_case = regression_case  # noqa: F821


def regression_case(trace):  # noqa: F811
    case = _case(trace)
    for step in case["model"]["script"]:
        for call in step.get("calls", []):
            call.pop("id", None)  # the flaw
    return case
