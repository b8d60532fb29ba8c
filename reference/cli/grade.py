"""`loopkit grade CANDIDATE.py`: run a candidate's loop on scripted scenarios in the sandbox and score it on
the interview rubric (docs/grading.md: the four kinds of file, the scenario sets, the points).

    loopkit grade docs/candidates/plain_functions.py
    loopkit grade my_loop.py --scenarios quick --format html -o grade.html
    loopkit grade my_loop.py --fail-under 60 -o grade.md   # for scripts: exit code 1 below 60 points
    loopkit grade my_loop.py --scenarios held-out/          # a hiring team's own scenario files

Exit codes: 0 graded, 1 graded below `--fail-under`, 2 not graded (a file it cannot grade, an unknown set).

As a command (its own process), the grader first closes itself to the candidate's processes (non-dumpable:
no /proc/PID/mem or /proc/PID/fd for them) and becomes their subreaper; every process they leave is stopped
after each run, and the report is written only once none is left, in one rename (`-o`).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from ..core.errors import ScenarioError
from ..grade import grade_file
from ..grade.report import to_html, to_json, to_markdown
from ..sandbox.orphans import become_non_dumpable, become_subreaper, children, stop_orphans, wait_for
from ..sandbox.process import Child
from ..sandbox.zygote import helpers

RENDER = {"md": to_markdown, "html": to_html, "json": to_json}


def cmd_grade(args: argparse.Namespace) -> int:
    command = getattr(args, "reap_orphans", False)
    if command:
        become_non_dumpable()
    reaping = command and become_subreaper()
    own = children() if reaping else set()
    sweep = (lambda: _sweep(own)) if reaping else None
    try:
        grade = grade_file(args.candidate, args.scenarios, time_limit=args.time_limit, lang=args.lang,
                           after_run=sweep)
    except KeyError as exc:  # an unknown scenario set
        print(f"loopkit: {exc.args[0]}", file=sys.stderr)
        return 2
    except ScenarioError as exc:  # a hiring team's own scenario file that does not read
        print(f"loopkit: {exc}", file=sys.stderr)
        return 2
    finally:
        if sweep is not None:
            sweep()
    text = RENDER[args.format](grade)
    if args.output:
        write_atomically(Path(args.output), text)
        print(f"wrote {args.output}: {grade.total}")
    else:
        sys.stdout.write(text)
    if grade.problem:
        return 2
    if args.fail_under is not None and grade.total < args.fail_under:
        print(f"loopkit: {grade.total} points, under --fail-under {args.fail_under}", file=sys.stderr)
        return 1
    return 0


def _sweep(own: set[int]) -> None:
    wait_for(set(Child.unreaped) - own)
    Child.reap()
    stop_orphans(own | helpers())  # the zygote that forks the runs is the grader's, not the candidate's


def write_atomically(path: Path, text: str) -> None:
    """The whole report or none of it: written beside the target, then renamed over it."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    umask = os.umask(0o022)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # as `open(path, "w")` would make it, not mkstemp's 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
