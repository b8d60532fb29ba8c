"""`loopkit`: the parser and the entry point; each command is its own module (demo, scenarios, run, check, hint,
lesson 6's trace, report, replay, and grade)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from ..core.errors import ProtocolError, ScenarioError, ScriptExhausted
from ..core.result import StopReason
from ..interview.bank import LANGS
from ..lessons import BY_EXERCISE
from ..runs.registry import LOOPS
from .card import cmd_card
from .check import cmd_check
from ..sandbox.check_session import LimitsRefused
from .demo import cmd_demo
from .diagnose import add_parser as add_diagnose
from .grade import cmd_grade
from .hint import cmd_hint
from .progress import cmd_list
from .replay import cmd_replay
from .report import cmd_report
from .run import cmd_run
from .scenarios import cmd_scenarios
from .bench import add_parser as add_bench
from .serve import add_parser as add_serve
from .trace import cmd_trace


LIMITS = ("The tests run in one sandboxed child process, your loop's runs inside it. Its limits, from the "
          "environment: LOOPKIT_CHECK_SECONDS (the whole check, default 60), LOOPKIT_CHECK_MEMORY_MB (default 1024), "
          "LOOPKIT_CHECK_RUN_SECONDS (caps each run's own time limit, 5 s unless a test sets another).")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="loopkit", description="Agent Loop Interview Kit: scripted failures for agent loops.")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="run the whole catalogue with the reference loop(s)")
    d.add_argument("--json", action="store_true", help="print a JSON array, one object per scenario and loop")
    d.add_argument("--loop", action="append", choices=list(LOOPS), help="only this loop (repeatable)")
    d.add_argument("--traces", metavar="DIR", help="write each run's JSONL trace to DIR/<scenario>.<loop>.jsonl")
    d.set_defaults(func=cmd_demo)
    s = sub.add_parser("scenarios", help="list the scenario catalogue")
    s.set_defaults(func=cmd_scenarios)
    r = sub.add_parser("run", help="run one scenario (catalogue name or YAML path)")
    r.add_argument("scenario", help="a catalogue name (see `loopkit scenarios`) or a path to a YAML file")
    r.add_argument("--loop", default="react", choices=list(LOOPS))
    r.add_argument("--seed", type=int, default=None, help="seed for the model's stochastic policy")
    r.add_argument("--json", action="store_true")
    r.add_argument("--trace", metavar="FILE", help="write the run's JSONL trace to FILE (read it with `loopkit trace`)")
    r.add_argument("--live", metavar="PROVIDER:MODEL", help="a real model instead of the script (openai:MODEL, "
                   "openai-responses:MODEL, anthropic:MODEL); the key comes from the environment")
    r.add_argument("--max-cost", type=float, metavar="USD", help="with --live: the hard cost cap, checked before "
                   "each request")
    r.add_argument("--max-tokens", type=int, default=1024, help="with --live: the output tokens a request may use")
    r.set_defaults(func=cmd_run)
    add_serve(sub)
    add_bench(sub)
    add_diagnose(sub)
    t = sub.add_parser("trace", help="a run's trace as a timeline: one line per step, the stop reason, the shape")
    t.add_argument("file", help="a JSONL trace (`loopkit run NAME --trace FILE`)")
    t.set_defaults(func=cmd_trace)
    f = sub.add_parser("report", help="fleet metrics and alerts over traces, the catalogue, or a seeded fleet")
    f.add_argument("traces", nargs="*", help="trace files or folders of them (default: run the catalogue)")
    f.add_argument("--fleet", metavar="SCENARIO", help="run a seeded fleet of this task family instead (e.g. fleet-lookup)")
    f.add_argument("--runs", type=int, default=100, help="runs in the fleet (seeds 1..N)")
    f.add_argument("--loop", default="react", choices=list(LOOPS), help="the loop for fresh runs")
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=cmd_report)
    p_replay = sub.add_parser("replay", help="turn a trace or any log diagnose reads into a scenario that plays "
                              "the run again")
    p_replay.add_argument("trace", help="a JSONL trace, or a log (see `loopkit diagnose`)")
    p_replay.add_argument("--conversation", type=int, default=0, metavar="N",
                          help="which conversation of the log, from 0 (default 0)")
    p_replay.add_argument("-o", "--output", help="the YAML file to write (default: print it)")
    p_replay.add_argument("--name", help="the scenario's name (default: the recorded one)")
    p_replay.add_argument("--regression", action="store_true",
                          help="expect the fix: the recorded run fails the case, a fixed loop passes it")
    p_replay.set_defaults(func=cmd_replay)
    c = sub.add_parser("check", help="run an exercise's tests against your code in exercises/", epilog=LIMITS)
    c.add_argument("exercise", choices=list(BY_EXERCISE))
    c.add_argument("--solutions", action="store_true", help="check the reference solution instead")
    c.add_argument("--watch", action="store_true", help="check again each time you save the file (Ctrl-C stops)")
    c.set_defaults(func=cmd_check)
    h = sub.add_parser("hint", help="a hint for an exercise: without N, the one for the first test your code fails",
                       epilog=LIMITS)
    h.add_argument("exercise", choices=list(BY_EXERCISE))
    h.add_argument("n", nargs="?", type=int, default=None, help="hint N (they escalate: 1, 2, 3...)")
    h.set_defaults(func=cmd_hint)
    ls = sub.add_parser("list", help="every exercise, which pass, and what to do next")
    ls.add_argument("--solutions", action="store_true", help="list the reference solutions instead")
    ls.set_defaults(func=cmd_list)
    k = sub.add_parser("card", help="the interviewer's printable card (questions, what to listen for, scoring)")
    k.add_argument("--lang", choices=LANGS, default="en")
    k.add_argument("--format", choices=("md", "html"), default="md", help="Markdown, or HTML to print on A4")
    k.add_argument("--lesson", type=int, default=None, help="only one lesson's questions (1-7)")
    k.add_argument("--bank", default=None, help="another questions.yaml (default: the kit's)")
    k.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")
    k.set_defaults(func=cmd_card)
    g = sub.add_parser("grade", help="grade a candidate's loop file on scripted scenarios and the interview rubric",
                       description="Kinds of file: loop(episode, max_steps) (the kit's API); agent(llm, run_tool, "
                       "user_message, tools) (plain functions); agent(client, run_tool, user_message, tools) with "
                       "the openai or anthropic SDK (async def for the async client). A plain or SDK agent returns "
                       "the answer, or a dict {answer, stop_reason, degraded}; stop reasons: "
                       + ", ".join(r.value for r in StopReason) + ". See docs/grading.md.")
    g.add_argument("candidate", help="the candidate's .py file (or file.py::function)")
    g.add_argument("--scenarios", default="interview",
                   help="interview (default), quick, all, or a folder of your own scenario files (or one file)")
    g.add_argument("--format", choices=("md", "html", "json"), default="md")
    g.add_argument("--lang", choices=LANGS, default="en", help="the rubric's language")
    g.add_argument("--time-limit", type=float, default=5.0, help="seconds of wall clock per scenario run")
    g.add_argument("--fail-under", type=int, default=None, metavar="N",
                   help="exit with code 1 when the total is below N points (for scripts); the report is written anyway")
    g.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")
    g.set_defaults(func=cmd_grade)
    return p


# Commands that may end the process without the interpreter's teardown, when it is theirs (`loopkit ...`, not a
# call with arguments from Python): freeing pytest's and the kit's heap object by object takes ~70 ms of a
# ~0.8 s `loopkit check`, and these hold nothing that needs it (no atexit handler, no file left open).
QUICK_EXIT = ("check", "hint", "list")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # `loopkit check` or `grade` as a command: its own short-lived process (sandbox/orphans.py)
    args.reap_orphans = argv is None
    code = run(args)
    if argv is None and args.command in QUICK_EXIT:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    return code


def run(args: argparse.Namespace) -> int:
    try:
        return args.func(args)
    except ScenarioError as exc:
        print(f"loopkit: invalid scenario\n{exc}", file=sys.stderr)
        return 2
    except (ScriptExhausted, ProtocolError) as exc:
        # the loop is fine; the scenario's script is too short, or a request broke the protocol
        print(f"loopkit: the run could not go on: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    except LimitsRefused as exc:  # a LOOPKIT_CHECK_* variable that is not a usable limit
        print(f"loopkit: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
