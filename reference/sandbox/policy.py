"""How a loop is run: where, under which limits, and how far what it says is believed.

`run_candidate` (reference/sandbox/grading.py) takes one of these. The defaults are the grader's: a child
process per run, five seconds and a gigabyte, nothing the loop claims about its own tools believed.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable

TIME_LIMIT = 5.0  # seconds of wall clock per run: the kit's loops take a fraction of one
MEMORY_LIMIT_MB = 1024
MODES = ("child", "in-process", "off")


@dataclass(frozen=True)
class RunPolicy:
    """`sandbox`: "child" runs the loop in a child process (inside a `loopkit check` session, which is a
    sandbox already: in process under the time limit); "in-process" runs it here under the time limit, so
    that what the loop keeps in its module stays from one run to the next, as in a real process; "off" runs
    a trusted loop here without limits. `echo` also writes what the loop printed to this process's stdout
    (a learner's debugging prints; the grader never does: its own output is its report). `trusted` (by
    default: a function given here, not a file) lets a loop in a child report the tools it ran itself into
    the books. `runaway_margin` is how many requests past the step limit a loop may make before it is
    stopped as a runaway. `api`, for a loop that speaks an HTTP API (a plain or SDK candidate), builds that API
    around the grader's episode: the loop's requests are checked there, on the grader's side of the channel,
    and the model is reached no other way."""
    time_limit: float = TIME_LIMIT
    memory_mb: int = MEMORY_LIMIT_MB
    sandbox: str = "child"
    echo: bool = True
    trusted: bool | None = None
    runaway_margin: int = 20
    api: Callable[[Any], Any] | None = None

    def __post_init__(self) -> None:
        if self.sandbox not in MODES:
            raise ValueError(f"sandbox must be one of {', '.join(MODES)}, not {self.sandbox!r}")
        if not self.time_limit > 0 or not self.memory_mb > 0 or self.runaway_margin < 0:
            raise ValueError(f"limits must be positive: time_limit={self.time_limit}, memory_mb={self.memory_mb}, "
                             f"runaway_margin={self.runaway_margin}")

    def with_(self, **changes: Any) -> RunPolicy:
        """This policy with some fields changed; `sandbox=True`/`False` still mean "child"/"off"."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise TypeError(f"run_candidate() got unexpected keyword arguments {unknown}; "
                            f"a RunPolicy has {', '.join(sorted(names))}")
        if isinstance(changes.get("sandbox"), bool):
            changes["sandbox"] = "child" if changes["sandbox"] else "off"
        return replace(self, **changes)
