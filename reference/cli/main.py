"""`loopkit`: the parser and the entry point; each command is its own module (demo, scenarios, run, check, hint,
lesson 6's trace, report, replay, and grade), imported only when that command runs."""
from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module
from typing import Collection, Sequence

from ..core.errors import LimitsRefused, ProtocolError, ScenarioError, ScriptExhausted
from ..core.result import StopReason
from ..lessons import BY_EXERCISE

# Every command: its one-line help, and the module and function that run it. A `loopkit` process imports only the
# module of the command it runs (each imports most of the kit: about a second of CPU for all of them at once); the
# other commands stay in the parser as their name and help line, which is all `loopkit --help` shows of them.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": ("run the whole catalogue with the reference loop(s)", "demo", "cmd_demo"),
    "scenarios": ("list the scenario catalogue", "scenarios", "cmd_scenarios"),
    "run": ("run one scenario (catalogue name or YAML path)", "run", "cmd_run"),
    "serve": ("serve a scenario's scripted model over HTTP (OpenAI and Anthropic APIs)", "serve", "cmd_serve"),
    "bench": ("drive other frameworks' agent loops through `loopkit serve` (docs/bench.md)", "bench", "cmd_bench"),
    "diagnose": ("judge real agent logs with the guard in shadow mode: a row per conversation, then the fleet",
                 "diagnose", "cmd_diagnose"),
    "trace": ("a run's trace as a timeline: one line per step, the stop reason, the shape", "trace", "cmd_trace"),
    "report": ("fleet metrics and alerts over traces, the catalogue, or a seeded fleet", "report", "cmd_report"),
    "replay": ("turn a trace or any log diagnose reads into a scenario that plays the run again", "replay",
               "cmd_replay"),
    "check": ("run an exercise's tests against your code in exercises/", "check", "cmd_check"),
    "hint": ("a hint for an exercise: without N, the one for the first test your code fails", "hint", "cmd_hint"),
    "list": ("every exercise, which pass, and what to do next", "progress", "cmd_list"),
    "card": ("the interviewer's printable card (questions, what to listen for, scoring)", "card", "cmd_card"),
    "grade": ("grade a candidate's loop file on scripted scenarios and the interview rubric", "grade", "cmd_grade"),
}

LIMITS = ("The tests run in one sandboxed child process, your loop's runs inside it. Its limits, from the "
          "environment: LOOPKIT_CHECK_SECONDS (the whole check, default 60), LOOPKIT_CHECK_MEMORY_MB (default 1024), "
          "LOOPKIT_CHECK_RUN_SECONDS (caps each run's own time limit, 5 s unless a test sets another).")


def build_parser(full: Collection[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    """The parser with the arguments of the commands in `full` (importing what they need); every other command is
    only its name and help line."""
    p = argparse.ArgumentParser(prog="loopkit", description="Agent Loop Interview Kit: scripted failures for agent loops.")
    sub = p.add_subparsers(dest="command", required=True)
    for name, (help_line, _, _) in COMMANDS.items():
        if name in full:
            ARGUMENTS[name](sub)
        else:
            sub.add_parser(name, help=help_line)
    return p


def command_named(argv: Sequence[str]) -> str | None:
    """The command the arguments ask for (the first word that is not an option), or None."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def _parser(sub: argparse._SubParsersAction, name: str, **kwargs) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=COMMANDS[name][0], **kwargs)


def demo_arguments(sub: argparse._SubParsersAction) -> None:
    from ..runs.registry import LOOPS
    d = _parser(sub, "demo")
    d.add_argument("--json", action="store_true", help="print a JSON array, one object per scenario and loop")
    d.add_argument("--loop", action="append", choices=list(LOOPS), help="only this loop (repeatable)")
    d.add_argument("--traces", metavar="DIR", help="write each run's JSONL trace to DIR/<scenario>.<loop>.jsonl")


def scenarios_arguments(sub: argparse._SubParsersAction) -> None:
    _parser(sub, "scenarios")


def run_arguments(sub: argparse._SubParsersAction) -> None:
    from ..runs.registry import LOOPS
    r = _parser(sub, "run")
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


def module_arguments(name: str):
    """A command whose module defines its own arguments (`add_parser`)."""
    def add(sub: argparse._SubParsersAction) -> None:
        import_module(f"{__package__}.{COMMANDS[name][1]}").add_parser(sub)
    return add


def trace_arguments(sub: argparse._SubParsersAction) -> None:
    t = _parser(sub, "trace")
    t.add_argument("file", help="a JSONL trace (`loopkit run NAME --trace FILE`)")


def report_arguments(sub: argparse._SubParsersAction) -> None:
    from ..runs.registry import LOOPS
    f = _parser(sub, "report")
    f.add_argument("traces", nargs="*", help="trace files or folders of them (default: run the catalogue)")
    f.add_argument("--fleet", metavar="SCENARIO", help="run a seeded fleet of this task family instead (e.g. fleet-lookup)")
    f.add_argument("--runs", type=int, default=100, help="runs in the fleet (seeds 1..N)")
    f.add_argument("--loop", default="react", choices=list(LOOPS), help="the loop for fresh runs")
    f.add_argument("--json", action="store_true")


def replay_arguments(sub: argparse._SubParsersAction) -> None:
    p_replay = _parser(sub, "replay")
    p_replay.add_argument("trace", help="a JSONL trace, or a log (see `loopkit diagnose`)")
    p_replay.add_argument("--conversation", type=int, default=0, metavar="N",
                          help="which conversation of the log, from 0 (default 0)")
    p_replay.add_argument("-o", "--output", help="the YAML file to write (default: print it)")
    p_replay.add_argument("--name", help="the scenario's name (default: the recorded one)")
    p_replay.add_argument("--regression", action="store_true",
                          help="expect the fix: the recorded run fails the case, a fixed loop passes it")


def check_arguments(sub: argparse._SubParsersAction) -> None:
    c = _parser(sub, "check", epilog=LIMITS)
    c.add_argument("exercise", choices=list(BY_EXERCISE))
    c.add_argument("--solutions", action="store_true", help="check the reference solution instead")
    c.add_argument("--watch", action="store_true", help="check again each time you save the file (Ctrl-C stops)")


def hint_arguments(sub: argparse._SubParsersAction) -> None:
    h = _parser(sub, "hint", epilog=LIMITS)
    h.add_argument("exercise", choices=list(BY_EXERCISE))
    h.add_argument("n", nargs="?", type=int, default=None, help="hint N (they escalate: 1, 2, 3...)")


def list_arguments(sub: argparse._SubParsersAction) -> None:
    ls = _parser(sub, "list")
    ls.add_argument("--solutions", action="store_true", help="list the reference solutions instead")


def card_arguments(sub: argparse._SubParsersAction) -> None:
    from ..interview.bank import LANGS
    k = _parser(sub, "card")
    k.add_argument("--lang", choices=LANGS, default="en")
    k.add_argument("--format", choices=("md", "html"), default="md", help="Markdown, or HTML to print on A4")
    k.add_argument("--lesson", type=int, default=None, help="only one lesson's questions (1-7)")
    k.add_argument("--bank", default=None, help="another questions.yaml (default: the kit's)")
    k.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")


def grade_arguments(sub: argparse._SubParsersAction) -> None:
    from ..interview.bank import LANGS
    g = _parser(sub, "grade",
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


ARGUMENTS = {"demo": demo_arguments, "scenarios": scenarios_arguments, "run": run_arguments,
             "serve": module_arguments("serve"), "bench": module_arguments("bench"),
             "diagnose": module_arguments("diagnose"), "trace": trace_arguments, "report": report_arguments,
             "replay": replay_arguments, "check": check_arguments, "hint": hint_arguments, "list": list_arguments,
             "card": card_arguments, "grade": grade_arguments}


# Commands that may end the process without the interpreter's teardown, when it is theirs (`loopkit ...`, not a
# call with arguments from Python): freeing pytest's and the kit's heap object by object takes ~70 ms of a
# ~0.8 s `loopkit check`, and these hold nothing that needs it (no atexit handler, no file left open).
QUICK_EXIT = ("check", "hint", "list")


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    chosen = command_named(words)
    args = build_parser([chosen] if chosen else []).parse_args(argv)
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
    _, module, function = COMMANDS[args.command]
    try:
        return getattr(import_module(f"{__package__}.{module}"), function)(args)
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
