"""`loopkit grade CANDIDATE.py`: run a candidate's loop on scripted scenarios in the sandbox and score it on
the interview rubric (docs/grading.md: the four kinds of file, the scenario sets, the points).

    loopkit grade docs/candidates/plain_functions.py
    loopkit grade my_loop.py --scenarios quick --format html -o grade.html
"""
from __future__ import annotations

import argparse
import sys

from ..grade import grade_file
from ..grade.report import to_html, to_json, to_markdown

RENDER = {"md": to_markdown, "html": to_html, "json": to_json}


def cmd_grade(args: argparse.Namespace) -> int:
    try:
        grade = grade_file(args.candidate, args.scenarios, time_limit=args.time_limit, lang=args.lang)
    except KeyError as exc:  # an unknown scenario set
        print(f"loopkit: {exc.args[0]}", file=sys.stderr)
        return 2
    text = RENDER[args.format](grade)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.output}: {grade.total}")
    else:
        sys.stdout.write(text)
    return 2 if grade.problem else 0
