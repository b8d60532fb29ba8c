"""`loopkit`: the parser and the entry point; each command is its own module (demo, scenarios, run, check, hint)."""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..core.errors import ProtocolError, ScenarioError, ScriptExhausted
from ..interview.bank import LANGS
from ..lessons import BY_EXERCISE
from ..runs.registry import LOOPS
from .card import cmd_card
from .check import cmd_check
from .demo import cmd_demo
from .hint import cmd_hint
from .progress import cmd_list
from .run import cmd_run
from .scenarios import cmd_scenarios


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="loopkit", description="Agent Loop Interview Kit: scripted failures for agent loops.")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="run the whole catalogue with the reference loop(s)")
    d.add_argument("--json", action="store_true", help="print a JSON array, one object per scenario and loop")
    d.add_argument("--loop", action="append", choices=list(LOOPS), help="only this loop (repeatable)")
    d.set_defaults(func=cmd_demo)
    s = sub.add_parser("scenarios", help="list the scenario catalogue")
    s.set_defaults(func=cmd_scenarios)
    r = sub.add_parser("run", help="run one scenario (catalogue name or YAML path)")
    r.add_argument("scenario", help="a catalogue name (see `loopkit scenarios`) or a path to a YAML file")
    r.add_argument("--loop", default="react", choices=list(LOOPS))
    r.add_argument("--seed", type=int, default=None, help="seed for the model's stochastic policy")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_run)
    c = sub.add_parser("check", help="run an exercise's tests against your code in exercises/")
    c.add_argument("exercise", choices=list(BY_EXERCISE))
    c.add_argument("--solutions", action="store_true", help="check the reference solution instead")
    c.add_argument("--watch", action="store_true", help="check again each time you save the file (Ctrl-C stops)")
    c.set_defaults(func=cmd_check)
    h = sub.add_parser("hint", help="a hint for an exercise: without N, the one for the first test your code fails")
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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ScenarioError as exc:
        print(f"loopkit: invalid scenario\n{exc}", file=sys.stderr)
        return 2
    except (ScriptExhausted, ProtocolError) as exc:
        # the loop is fine; the scenario's script is too short, or a request broke the protocol
        print(f"loopkit: the run could not go on: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
