"""The fresh interpreter a candidate's loop runs in (`python -m reference.runs.fresh_main FD [MODULE ...]`):
reference/runs/fresh.py starts it and says why. It imports the kit (and MODULEs: an SDK), says `ready` on
the channel (descriptor FD), receives the start message, and runs the loop under its limits."""
from __future__ import annotations

import importlib
import socket
import sys
from typing import Any, Callable

from ..core.codec import decode
from ..harness.channel import Channel
from ..harness.remote import RemoteEpisode, public_scenario
from ..sim.clock import SimClock
from .fresh import LoopEntry
from .process import Limits, limit
from .sandbox import load_loop, read_source, report_run


def main(argv: list[str]) -> None:
    """The fresh interpreter: the kit, `ready`, the start message, the loop, its last word (reference/runs/sandbox.py)."""
    for module in argv[2:]:
        importlib.import_module(module)
    channel = Channel(socket.socket(fileno=int(argv[1])))
    channel.send({"op": "ready"})
    start = channel.receive()
    limits = Limits(float(start["seconds"]), int(start["memory_mb"]))
    sys.stdout.reconfigure(line_buffering=True, errors="replace")  # type: ignore[union-attr]
    sys.stderr.reconfigure(line_buffering=True, errors="replace")  # type: ignore[union-attr]
    spec = start["loop"]
    source = read_source(spec) if isinstance(spec, str) else None

    def prepare() -> tuple[Any, Callable[..., Any]]:
        remote = RemoteEpisode(channel, public_scenario(start["scenario"]), decode(start["specs"]),
                               SimClock.at(start["clock"]).start, decode(start["pricing"]), start["loop_name"])
        loop = load_loop(spec, source) if isinstance(spec, str) else LoopEntry(spec["factory"], tuple(spec["args"])).load()
        return remote, loop

    limit(limits, unprivileged=True)
    report_run(prepare, channel, int(start["max_steps"]))


if __name__ == "__main__":
    main(sys.argv)
