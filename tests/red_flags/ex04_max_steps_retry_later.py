"""Red flag: after the step limit, "please try again later".

Nothing about the request changes with time: the same request takes the same steps and stops at
the same place. The step limit says the request is too big (narrow it) or too vague (rephrase it).
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex04_degraded_output.py"))
     .get_code("solution"))

NEXT[StopReason.MAX_STEPS] = ("retry_later", "hand_over")  # noqa: F821  # the flaw
