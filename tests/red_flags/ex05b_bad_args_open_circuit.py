"""Red flag: every failed call counts towards the circuit breaker, invalid arguments included.

"Two failures and the tool is out." A 400 says the call was wrong, not that the tool is sick: a
model that gets a date wrong twice loses a healthy tool (and, with no other tool, the whole run),
just when the error message had told it how to fix the call.
"""
from pathlib import Path

# The solution, with the breaker counting the caller's mistakes too.
_source = (Path(__file__).resolve().parents[2] / "solutions" / "ex05b_errors_stretch.py").read_text(encoding="utf-8")
_sick = 'if failure.retryable or failure.error_type == "internal_error":'
assert _source.count(_sick) == 1, "the solution changed: update this red flag"
exec(compile(_source.replace(_sick, "if True:"),  # the flaw
             "solutions/ex05b_errors_stretch.py", "exec"))
