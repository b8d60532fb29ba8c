"""Red flag: state as an untyped dict. Anything goes in: a string "yes" for a bool, a field nobody
declared, a schema version nobody knows."""
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The solution (its cached bytecode), with one piece replaced below.
exec(SourceFileLoader("solution", str(Path(__file__).resolve().parents[2] / "solutions" / "ex07_design.py"))
     .get_code("solution"))


class MetricState:  # noqa: F811
    def __init__(self, **fields):
        self.__dict__.update({"schema_version": 1, "metric_recorded": False, "trend_loaded": False,
                              "record_id": None, "trend": None}, **fields)

    @property
    def complete(self):
        return self.metric_recorded and self.trend_loaded
