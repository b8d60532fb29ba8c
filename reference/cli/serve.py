"""`loopkit serve SCENARIO`: the scenario's scripted model over HTTP, for clients in other processes.

The first line on stdout is the base URL; the OpenAI SDK takes it with /v1, the Anthropic SDK without.
One log line per request goes to stderr. SIGINT (Ctrl-C) or SIGTERM stops the server cleanly.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading

from ..serve.app import ServeApp
from ..serve.http import MAX_BYTES, RATE, TIMEOUT, WORKERS, ServeHTTP
from ..sim.scenario.loading import find


def cmd_serve(args: argparse.Namespace) -> int:
    scenario = find(args.scenario)
    log = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    app = ServeApp(scenario, seed=args.seed, log=log, max_requests=args.max_requests)
    try:
        server = ServeHTTP(app, args.host, args.port, public=args.public, rate=args.rate, max_bytes=args.max_bytes,
                           timeout=args.timeout, workers=args.workers)
    except (ValueError, OSError) as exc:
        print(f"loopkit serve: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.set())
    server.start()
    print(server.base_url, flush=True)
    print(f"serving {scenario.name}: OpenAI base_url={server.base_url}/v1, Anthropic base_url={server.base_url} "
          "(any API key); the client runs its own tools and the script follows its reactions", file=sys.stderr,
          flush=True)
    while not stop.wait(0.2):  # a short wait so that the signal handler gets its turn
        pass
    server.stop()
    print(f"loopkit serve: stopped after {app.books.figures()['requests']} request(s)", file=sys.stderr, flush=True)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("serve", help="serve a scenario's scripted model over HTTP (OpenAI and Anthropic APIs)")
    s.add_argument("scenario", help="a catalogue name or a path to a YAML file")
    s.add_argument("--host", default="127.0.0.1", help="the address to listen on (loopback unless --public)")
    s.add_argument("--port", type=int, default=0, help="the port (0: any free one; the first line printed says which)")
    s.add_argument("--seed", type=int, default=None, help="seed for the model's stochastic policy")
    s.add_argument("--rate", type=float, default=RATE, help="requests per second for the whole server")
    s.add_argument("--max-bytes", type=int, default=MAX_BYTES, help="the largest request body accepted")
    s.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds one request may take in all (waiting for "
                                                                "it, reading it, answering it)")
    s.add_argument("--workers", type=int, default=WORKERS, help="connections served at once; one more gets 503")
    s.add_argument("--max-requests", type=int, default=None,
                   help="answer at most this many model requests; later ones get 429 (caps a runaway client)")
    s.add_argument("--public", action="store_true", help="allow a --host that is not a loopback address")
    s.add_argument("--quiet", action="store_true", help="no log line per request")
    s.set_defaults(func=cmd_serve)
