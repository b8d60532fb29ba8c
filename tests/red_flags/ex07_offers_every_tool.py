"""Red flag: the router still offers every tool. The card renderer competes with the tools that answer,
and the candidate set is as large as before."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex07_design.py"))
     .get_code("solution"))


def route(user, tools):  # noqa: F811
    return list(tools)
