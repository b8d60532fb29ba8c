"""`loopkit hint exNN [N]`: hint N, or, without N, the hint for the first behaviour your code gets wrong.

A hints file (reference/hints/exNN.md) is a list of `## Hint N` sections; a line
`<!-- for: test_a, test_b -->` under a heading names the tests that hint is for.
"""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..lessons import Lesson, lesson_for
from .exercise_tests import run_tests

PACKAGE_PARENT = Path(__file__).resolve().parent.parent.parent  # lesson.hints_file is relative to it
FOR_TESTS = re.compile(r"^<!-- for: (.*?) -->\n?", re.MULTILINE)


@dataclass(frozen=True)
class Hint:
    number: int
    text: str
    tests: tuple[str, ...]  # test functions this hint helps with


def read_hints(lesson: Lesson) -> list[Hint]:
    path = PACKAGE_PARENT / lesson.hints_file
    if not path.exists():
        raise SystemExit(f"loopkit: no hints for {lesson.exercise!r} ({lesson.hints_file} is missing)")
    hints = []
    for number, section in enumerate(path.read_text(encoding="utf-8").split("\n## Hint ")[1:], start=1):
        body = section.split("\n", 1)[1]
        found = FOR_TESTS.search(body)
        tests = tuple(t.strip() for t in found.group(1).split(",")) if found else ()
        hints.append(Hint(number, FOR_TESTS.sub("", body).strip(), tests))
    return hints


def hint_for(hints: list[Hint], test: str) -> Hint:
    """The hint written for this test function; the first hint when none names it."""
    return next((h for h in hints if test in h.tests), hints[0])


def show(exercise: str, hint: Hint, total: int, failing: Optional[str] = None) -> str:
    because = f" (your code fails {failing})" if failing else ""
    more = f"\n\n(more: loopkit hint {exercise} {hint.number + 1})" if hint.number < total else ""
    return f"{exercise}, hint {hint.number} of {total}{because}:\n\n{hint.text}{more}"


def cmd_hint(args: argparse.Namespace) -> int:
    lesson = lesson_for(args.exercise)
    hints = read_hints(lesson)
    if args.n is not None:
        print(show(args.exercise, hints[max(1, min(args.n, len(hints))) - 1], len(hints)))
        return 0
    run = run_tests(lesson, "exercises", first_failure_only=True)
    if not run.failed:
        if run.exit_code not in (0, 1):
            print(run.output)
            return 1
        print(f"{args.exercise}: every test passes; nothing to hint (`loopkit hint {args.exercise} 1` shows hint 1)")
        return 0
    first = run.failed[0]
    print(show(args.exercise, hint_for(hints, first.function), len(hints), failing=first.function))
    return 0
