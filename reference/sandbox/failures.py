"""How a candidate's run can end badly, each with its story ("scenario `x`: your loop called sys.exit(3)").

The grader (reference/sandbox/grading.py) reports these instead of dying with the candidate's process.
"""
from __future__ import annotations

from typing import Any

from .process import killed_by


class CandidateFailure(Exception):
    """What ended a candidate's run, in words: `story` completes "scenario `x`: ..."."""

    story = "your loop failed"

    def __str__(self) -> str:
        return self.story


class CandidateRaised(CandidateFailure):
    def __init__(self, type_name: str, message: str):
        self.type_name, self.message = type_name, message
        self.story = f"your loop raised {type_name}" + (f": {message}" if message else "")


class CandidateExited(CandidateFailure):
    def __init__(self, code: Any):
        self.code = code
        self.story = f"your loop called sys.exit({'' if code is None else repr(code)})"


class ProcessDied(CandidateFailure):
    def __init__(self, exitcode: int | None):
        self.exitcode = exitcode
        if exitcode == 75:  # run_view.EXIT_REFUSED: the sandbox, not the loop (a loop that exits so gains nothing)
            self.story = "the run was not started: the sandbox could not hide the scenario files (its output says why)"
        elif exitcode is not None and exitcode < 0:
            self.story = f"your loop's process was killed by signal {killed_by(exitcode)}"
        else:
            self.story = f"your loop's process ended abruptly with exit code {exitcode} (os._exit?)"


class TimeLimit(CandidateFailure):
    def __init__(self, seconds: float, model_calls: int):
        self.seconds = seconds
        self.story = (f"your loop ran past the {seconds:g} s time limit ({model_calls} model calls by then) "
                      "and was stopped")


class MemoryLimit(CandidateFailure):
    def __init__(self, megabytes: int, how: str = ""):
        self.story = f"your loop exceeded the memory limit ({megabytes:,} MB)" + (f": {how}" if how else "")


class BrokenChannel(CandidateFailure):
    def __init__(self, what: str):
        self.story = f"your loop's process sent the grader something it cannot read: {what}"


class ClaimRejected(CandidateFailure):
    """The loop's result says what the model's request log contradicts."""

    def __init__(self, why: str):
        self.story = f"rejected: your loop {why}"
