"""`loopkit bench`: other frameworks' default agent loops against the scripted model (docs/bench.md).

Each framework runs in its own venv (made on first use), against a loopback `loopkit serve` of the
scenario on Chat Completions, with the scenario's tools as its own tools: each run in a fork of a worker
that imported the framework once (reference/bench/workers.py), or with --fresh in a new process.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

from ..bench.frameworks import FRAMEWORKS, GUARD_ROWS, ensure_venv, versions
from ..bench.report import markdown, plot, table
from ..bench.run import QUIET_ENV, Outcome, run_one
from ..bench.workers import Workers
from ..bench.workers import available as forking
from ..sim.scenario.loading import catalogue, find

PLOT = "bench.png"  # in the current directory: a run never overwrites a file the repository tracks


def cmd_bench(args: argparse.Namespace) -> int:
    frameworks = [FRAMEWORKS[name] for name in args.frameworks]
    scenarios = [find(name) for name in args.scenarios] if args.scenarios else catalogue()
    if args.rerun and not args.results:
        raise SystemExit("loopkit bench: --rerun drops rows from a --results file; name the file")
    rerun = rerun_rows(args.rerun) if args.rerun else set()
    kept = {key: o for key, o in (read_results(args.results) if args.results else {}).items() if key[0] not in rerun}
    for framework in frameworks:
        if any((framework.name, s.name) not in kept for s in scenarios):  # runs to do: its venv, ready
            ensure_venv(framework, log=lambda line: print(line, file=sys.stderr))
    # every venv the runs need is made before a row leaves the file: a venv that cannot be made loses no run
    shown = {framework.name: versions(framework) for framework in frameworks}
    if rerun:
        dropped = drop_rows(args.results, rerun)
        print(f"loopkit bench: {dropped} runs dropped from {args.results}, to run again", file=sys.stderr)
    writing = threading.Lock()

    def one(pair):
        framework, scenario = pair
        if (framework.name, scenario.name) in kept:
            return kept[framework.name, scenario.name]
        outcome = run_one(framework, scenario, timeout=args.timeout, max_requests=args.max_requests, workers=workers)
        print(f"{outcome.framework} / {outcome.scenario}: {outcome.stop}", file=sys.stderr, flush=True)
        if args.results:
            with writing, open(args.results, "a", encoding="utf-8") as out:
                out.write(json.dumps(asdict(outcome)) + "\n")
        return outcome
    workers = None if args.fresh or not forking() else Workers({**os.environ, **QUIET_ENV})
    try:
        with ThreadPoolExecutor(max(args.jobs, 1)) as pool:  # each run has its own server and its own process
            # scenario by scenario: a bench cut short still compares every framework on the scenarios it ran
            done = {(o.framework, o.scenario): o for o in pool.map(one, [(f, s) for s in scenarios for f in frameworks])}
    finally:
        if workers is not None:
            workers.close()
    outcomes = [done[f.name, s.name] for f in frameworks for s in scenarios]
    print(table(outcomes))
    if args.plot:
        plot(outcomes, args.plot)
    if args.write:
        with open(args.write, "w", encoding="utf-8") as out:
            out.write(markdown(outcomes, shown, datetime.date.today().isoformat(), args,
                               plot_link=plot_link(args.plot, args.write)))
    return 0


def read_results(path: str) -> dict[tuple[str, str], Outcome]:
    """The runs a results file already holds (one JSON object a line), by (framework, scenario)."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as lines:
        found = [Outcome(**json.loads(line)) for line in lines if line.strip()]
    return {(o.framework, o.scenario): o for o in found}


def rerun_rows(asked: list[str]) -> set[str]:
    """The rows --rerun names; `guard`: every row whose result depends on the kit's guard."""
    return {name for word in asked for name in (GUARD_ROWS if word == "guard" else [word])}


def drop_rows(path: str, rows: set[str]) -> int:
    """Rewrite a results file without those rows' runs (the others kept as they were); how many went."""
    if not os.path.exists(path):
        return 0
    with open(path, encoding="utf-8") as lines:
        every = [line for line in lines if line.strip()]
    keep = [line for line in every if json.loads(line)["framework"] not in rows]
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        out.writelines(keep)
    os.replace(path + ".tmp", path)
    return len(every) - len(keep)


def plot_link(plot_path: str, page_path: str) -> str | None:
    """The plot as the Markdown page links it: relative to the page's folder (None if there is no plot)."""
    if not plot_path:
        return None
    return os.path.relpath(os.path.abspath(plot_path), os.path.dirname(os.path.abspath(page_path))).replace(os.sep, "/")


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("bench", help="drive other frameworks' agent loops through `loopkit serve` (docs/bench.md)")
    s.add_argument("--frameworks", nargs="+", default=list(FRAMEWORKS), choices=list(FRAMEWORKS))
    s.add_argument("--scenarios", nargs="+", default=None, help="catalogue names (default: the whole catalogue)")
    s.add_argument("--timeout", type=float, default=60.0, help="wall-time limit of one run, in seconds")
    s.add_argument("--max-requests", type=int, default=60, help="the server refuses model requests past this")
    s.add_argument("--jobs", type=int, default=4, help="runs at once (each its own server and process)")
    s.add_argument("--plot", default=PLOT, help=f"where to save the plot (default: {PLOT} in the current "
                                                 "directory; '' for none)")
    s.add_argument("--write", default=None, help="write the results table as Markdown (docs/bench.md)")
    s.add_argument("--results", default=None, help="a JSON-lines file: each run is added as it ends, and the runs "
                                                   "it already holds are not run again (a long bench resumes)")
    s.add_argument("--rerun", nargs="+", default=[], choices=[*FRAMEWORKS, "guard"], metavar="ROW",
                   help="drop these rows' runs from the --results file and run them again; 'guard': every row the "
                        "kit's guard decides (kit-guarded and each +kit-guard), after a change to the guard")
    s.add_argument("--fresh", action="store_true", help="a new process per run, imports and all (default: a fork "
                                                        "of a worker per framework that imported it once)")
    s.set_defaults(func=cmd_bench)
