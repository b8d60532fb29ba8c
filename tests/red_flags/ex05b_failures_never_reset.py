"""Red flag: the circuit breaker counts failures over the whole run, not in a row.

"Withdraw a tool after two failures." A tool that fails now and then but mostly works is withdrawn
on its second blip of the run, however many successes came in between.
"""
from pathlib import Path

# The solution, with the reset after a success left out.
_source = (Path(__file__).resolve().parents[2] / "solutions" / "ex05b_errors_stretch.py").read_text(encoding="utf-8")
_reset = "            self.failures[call.name] = 0\n            return ToolMessage(call.id, outcome.to_content())"
assert _source.count(_reset) == 1, "the solution changed: update this red flag"
exec(compile(_source.replace(_reset, "            return ToolMessage(call.id, outcome.to_content())"),  # the flaw
             "solutions/ex05b_errors_stretch.py", "exec"))
