"""`loopkit check exNN`: the exercise's tests against your code, one line per test, then the hint that fits."""
from __future__ import annotations

import argparse

from ..lessons import lesson_for
from .exercise_tests import run_tests
from .hint import hint_for, read_hints

INDENT = "        "


def cmd_check(args: argparse.Namespace) -> int:
    lesson = lesson_for(args.exercise)
    run = run_tests(lesson, "solutions" if args.solutions else "exercises")
    if run.exit_code not in (0, 1):  # a usage or collection error (a syntax error in your file, say)
        print(run.output)
    for outcome in run.outcomes:
        print(f"  {'PASS' if outcome.passed else 'FAIL'}  {outcome.test}")
        if not outcome.passed:
            print(INDENT + outcome.explanation.replace("\n", "\n" + INDENT))
    failed = run.failed
    print(f"\n{args.exercise}: {len(run.outcomes) - len(failed)} passed, {len(failed)} failed")
    if failed:
        hints = read_hints(lesson)
        hint = hint_for(hints, failed[0].function)
        more = f"; more: loopkit hint {args.exercise} {hint.number + 1}" if hint.number < len(hints) else ""
        print(f"\nHint {hint.number}: {hint.text}\n(the hint for {failed[0].function}{more})")
    return 1 if failed or not run.outcomes else 0
