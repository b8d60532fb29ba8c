"""Red flag: the checklist is ticked when the model calls the tool, not when a validated result comes
back: the model marks its own work done, and HTTP 200 with success: false counts as recorded."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex07_design.py"))
     .get_code("solution"))


_execute = DesignedExecutor.execute  # noqa: F821


def execute(self, episode, call):  # noqa: F811
    if call.name == "record_metric" and not self.state.metric_recorded:
        self.state.metric_recorded = True  # the flaw: ticked on the model's say-so
        self.state.record_id = "unknown"
        return self.inner.execute(episode, call)
    return _execute(self, episode, call)


DesignedExecutor.execute = execute  # noqa: F821
