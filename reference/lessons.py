"""The lessons and their exercises: what `loopkit check/hint`, the notebook build, the tests and the README read.

Each lesson has one notebook and a core exercise (LESSONS); a lesson whose exercise is too big for one
sitting also has a stretch exercise (STRETCH), built on what the core taught. EXERCISES holds both.
Adding an exercise is one row here plus its files: exercises/ and solutions/ exNN_name.py,
tests/test_exNN_name.py, tests/red_flags/exNN_caught.py and reference/hints/exNN.md (a lesson also
needs notebooks/src/NN_name.py). Paths are relative to the repository root. This module imports nothing
from the rest of reference/.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    notebook: str  # the stored, executed notebook; its source is notebooks/src/<same stem>.py
    exercise: str  # what `loopkit check` and `loopkit hint` take: ex01, ex02...
    module: str  # the exercise's file name in exercises/ and solutions/, without .py
    test_file: str
    hints_file: str  # inside the installed package too (package data), so `loopkit hint` works anywhere
    teaches: str  # one line, as in the README's lesson table
    part: str = "core"  # "core": what the lesson needs; "stretch": more of the same, after the core passes
    minutes: int = 0  # the exercise's time, estimated from its size (MINUTES_ESTIMATE says how); 0: none yet

    @property
    def source(self) -> str:
        return self.notebook.replace("notebooks/", "notebooks/src/", 1).removesuffix(".ipynb") + ".py"

    @property
    def stem(self) -> str:
        """The notebook's name without folder or suffix, e.g. 01_react_loop."""
        return self.notebook.rsplit("/", 1)[-1].removesuffix(".ipynb")


MINUTES_ESTIMATE = (
    "Estimated, not timed: the lines of code the reference solution writes beyond what the stub gives "
    "(no docstrings, comments, blank lines or imports), at about a minute a line for a learner who has just "
    "read the lesson (reading the task, writing, and fixing what the tests report), plus five minutes to "
    "read the task, rounded up to five minutes. No learner has been timed doing them cold yet.")


def _lesson(number: int, title: str, notebook: str, module: str, teaches: str, part: str = "core",
            minutes: int = 0) -> Lesson:
    """One row: the exercise id (ex03, ex03b), test file and hints file follow from the module's name."""
    exercise = module.split("_", 1)[0]
    return Lesson(number, title, f"notebooks/{notebook}.ipynb", exercise, module, f"tests/test_{module}.py",
                  f"reference/hints/{exercise}.md", teaches, part, minutes)


LESSONS: tuple[Lesson, ...] = (
    _lesson(1, "The ReAct loop, in 20 lines", "01_react_loop", "ex01_react_loop",
            "the 20-line ReAct loop on native function calling; why text-parsed ReAct was replaced; the "
            "id-pairing red flag; the naive loop across the catalogue", minutes=15),
    _lesson(2, "Exits and budgets", "02_exits_and_budgets", "ex02_budget",
            "four kinds of exit; token, time and cost budgets checked before each request; choosing "
            "`max_steps` from a seeded fleet (P95 plus a margin, per-intent tiers)", minutes=35),
    _lesson(3, "Fingerprint guards that intervene before they interrupt", "03_fingerprint_guards",
            "ex03_fingerprint_guard",
            "normalised action fingerprints (key order, whitespace, case, relative dates, IATA metropolitan "
            "areas), result fingerprints, A-B-A-B, no progress; intervene first, then stop", minutes=80),
    _lesson(4, "Degraded outputs", "04_degraded_outputs", "ex04_degraded_output",
            "what was obtained, what is unfinished, what to do next instead of \"max steps reached\"; a last "
            "tool-less answer sent only if it fits what is left of the run's limits", minutes=65),
    _lesson(5, "Tool errors that do not turn into loops", "05_tool_errors", "ex05_tool_errors",
            "retryable vs non-retryable errors, retries in code on the simulated clock, actionable messages "
            "with no stack trace or secret, HTTP 200 business failures, schema validation, circuit breakers",
            minutes=85),
    _lesson(6, "Trace-based diagnosis", "06_trace_diagnosis", "ex06_trace_diagnosis",
            "a JSONL trace for every run; stop reasons, then shape, then text; trajectory shapes and their "
            "fixes; fleet metrics and alerts; a 40-step incident from its trace; a bad run replayed into a "
            "regression case", minutes=60),
    _lesson(7, "Fix the design, not the fuse", "07_design_not_fuse", "ex07_design",
            "five root causes and the layer each is fixed in; an intent router, slots settled in code, a "
            "runtime checklist that ends the run; typed state, plan and result validation; four kinds of "
            "loop, naive and fixed; workflow or agent; how frameworks cap and end a loop", minutes=85),
)

# The stretch exercises: the same lesson and notebook, a file of their own, done after the core passes.
STRETCH: tuple[Lesson, ...] = (
    _lesson(3, "Fingerprint guards (stretch): results, progress, polling and turns", "03_fingerprint_guards",
            "ex03b_guard_stretch",
            "result fingerprints and same-result, no progress, polling judged by its result, one lapse per turn",
            part="stretch", minutes=90),
    _lesson(5, "Tool errors (stretch): malformed calls and circuit breakers", "05_tool_errors",
            "ex05b_errors_stretch",
            "malformed calls answered with an example, schema validation per tool, circuit breakers that "
            "withdraw a tool",
            part="stretch", minutes=80),
)

# Every exercise in the order to do them: each lesson's core, then its stretch.
EXERCISES: tuple[Lesson, ...] = tuple(sorted((*LESSONS, *STRETCH), key=lambda e: (e.number, e.part != "core")))
BY_EXERCISE = {exercise.exercise: exercise for exercise in EXERCISES}


def lesson_for(exercise: str) -> Lesson:
    """The exercise `ex01`, `ex03b`... (its lesson's number, title and notebook), or a KeyError listing them."""
    try:
        return BY_EXERCISE[exercise]
    except KeyError:
        raise KeyError(f"no exercise {exercise!r}; exercises: {', '.join(BY_EXERCISE)}") from None


@dataclass(frozen=True)
class ExtraNotebook:
    """A notebook that is not a numbered lesson (no exercise, no hints): built, checked and nbval-run like
    the lessons. Its source is notebooks/src/<stem>.py."""

    notebook: str
    title: str

    @property
    def source(self) -> str:
        return self.notebook.replace("notebooks/", "notebooks/src/", 1).removesuffix(".ipynb") + ".py"


EXTRA_NOTEBOOKS: tuple[ExtraNotebook, ...] = (
    ExtraNotebook("notebooks/mock_interview.ipynb", "Mock interview: write the loop, get it graded, take the follow-ups"),
    ExtraNotebook("notebooks/loop_lab.ipynb", "The Loop Lab: switch the parts, move the limits, compare two loops"),
)
