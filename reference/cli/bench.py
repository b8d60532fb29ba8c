"""`loopkit bench`: other frameworks' default agent loops against the scripted model (docs/bench.md).

Each framework runs in a child process with its own venv (made on first use), against a loopback
`loopkit serve` of the scenario on Chat Completions, with the scenario's tools as its own tools.
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from ..bench.frameworks import FRAMEWORKS, ensure_venv, versions
from ..bench.report import markdown, plot, table
from ..bench.run import run_one
from ..sim.scenario.loading import catalogue, find

PLOT = "bench.png"  # in the current directory: a run never overwrites a file the repository tracks


def cmd_bench(args: argparse.Namespace) -> int:
    frameworks = [FRAMEWORKS[name] for name in args.frameworks]
    scenarios = [find(name) for name in args.scenarios] if args.scenarios else catalogue()
    shown = {}
    for framework in frameworks:
        ensure_venv(framework, log=lambda line: print(line, file=sys.stderr))
        shown[framework.name] = versions(framework)
    def one(pair):
        outcome = run_one(*pair, timeout=args.timeout, max_requests=args.max_requests)
        print(f"{outcome.framework} / {outcome.scenario}: {outcome.stop}", file=sys.stderr, flush=True)
        return outcome
    with ThreadPoolExecutor(max(args.jobs, 1)) as pool:  # each run has its own server and child process
        outcomes = list(pool.map(one, [(f, s) for f in frameworks for s in scenarios]))
    print(table(outcomes))
    if args.plot:
        plot(outcomes, args.plot)
    if args.write:
        with open(args.write, "w", encoding="utf-8") as out:
            out.write(markdown(outcomes, shown, datetime.date.today().isoformat(), args,
                               plot_link=plot_link(args.plot, args.write)))
    return 0


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
    s.set_defaults(func=cmd_bench)
