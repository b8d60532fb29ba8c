"""Red flag: the tool's own `retryable` flag decides what is retried.

Tool wrappers get that flag wrong (some mark every error retryable). A 400 fails the same way on
every attempt: the retries burn time and quota. The taxonomy, in one place, decides from the status.
"""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below: what the interviewer hears most
# often is rarely all wrong.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex05_tool_errors.py"))
     .get_code("solution"))

_classify = classify  # noqa: F821  (defined by the solution above)


def classify(outcome, exc=None):
    if exc is None and outcome is not None and not outcome.ok and outcome.retryable:  # the flaw: the tool's word
        return Failure("unavailable", True, retry_after=outcome.retry_after, detail=outcome.message)  # noqa: F821
    return _classify(outcome, exc)
