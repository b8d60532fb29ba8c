"""A candidate's loop in a freshly exec'd interpreter (the grader's side; the interpreter's is fresh_main.py): nothing of the grader's memory, only what a loop needs.

A forked child starts as a copy of the grader: every scenario it loaded (the model's script, the tools'
scripted results, the `expect` block) is in its memory for the loop to read. For a candidate's file the
grader forks and, before anything else, execs a new interpreter (`python -m reference.sandbox.fresh_main FD`): its own
process group, its output to the grader's pipe, the channel on descriptor FD and no other descriptor of the
grader's. The interpreter imports the kit, says `ready`, and receives what a loop needs: the scenario's
public face (reference/sandbox/remote.py `public_view`), the tool specs, the clock, the prices and the loop
to run (a file, or a `LoopEntry` that builds one). The wall-clock limit starts at `ready`: the
interpreter's start (a fraction of a second, more under load) is not the loop's time.
"""
from __future__ import annotations

import importlib
import os
import resource
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..core.codec import encode
from .channel import Channel
from ..harness.episode import Episode
from .remote import public_view
from .failures import BrokenChannel, CandidateFailure
from .process import OUTPUT_KEPT, Child, Limits

STARTUP_SECONDS = 60.0  # for the fresh interpreter to import the kit and say `ready` (a loaded machine is slow)
FD = 3  # the channel, in the fresh interpreter


@dataclass(frozen=True)
class LoopEntry:
    """A loop built in the candidate's process by `module:function(*args)` (JSON-able arguments): how a loop that
    is not a plain file (a plain or SDK candidate wrapped for the kit) crosses into a fresh interpreter."""

    factory: str
    args: tuple[Any, ...] = ()
    preload: tuple[str, ...] = ()  # modules the interpreter imports before `ready` (an SDK: not the loop's time)

    def load(self) -> Callable[..., Any]:
        module, _, name = self.factory.partition(":")
        return getattr(importlib.import_module(module), name)(*self.args)

    def to_json(self) -> dict[str, Any]:
        return {"factory": self.factory, "args": list(self.args)}


def exec_fresh(channel_fd: int, out_w: int, cpu_seconds: int | None, preload: tuple[str, ...] = (),
               zygote: bool = False) -> None:
    """In the just-forked child, before any other code: new session, standard streams to the grader's pipe,
    the channel on FD, every other descriptor closed, then a new interpreter (this never returns). A
    `zygote` (reference/sandbox/zygote.py) gets its control socket on FD and forks the runs' processes."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    os.dup2(channel_fd, FD)
    os.set_inheritable(FD, True)
    os.closerange(FD + 1, 65536)
    if cpu_seconds is not None:  # a spinning child stops, grader or not
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    os.execv(sys.executable, [sys.executable, "-m", "reference.sandbox.fresh_main", *(["--zygote"] if zygote else []),
                              str(FD), *preload])


def start_message(loop: str | Path | LoopEntry, episode: Episode, max_steps: int, limits: Limits) -> dict[str, Any]:
    """All the fresh interpreter is told: what a loop needs, and which loop."""
    return {"op": "start", "scenario": public_view(episode.scenario), "specs": encode(episode.tools.specs),
            "clock": episode.scenario.clock, "pricing": encode(episode.ledger.pricing), "loop_name": episode.loop_name,
            "max_steps": max_steps, "loop": loop.to_json() if isinstance(loop, LoopEntry) else str(loop),
            "seconds": limits.seconds, "memory_mb": limits.memory_mb, "hide": scenario_folders(episode.scenario)}


def scenario_folders(scenario: Any) -> list[str]:
    """The folder the run's scenario file lies in (a held-out set's, the catalogue), for the run's view to hide."""
    source = getattr(scenario, "source", None)
    return [os.path.dirname(os.path.realpath(source))] if source and os.path.isfile(source) else []


def handshake(child: Child, channel: Channel, out_r: int, output: bytearray, message: dict[str, Any]
              ) -> CandidateFailure | None:
    """Wait for the fresh interpreter's `ready`, then send it `message`; what went wrong if it never got there."""
    try:
        hello = channel.receive(timeout=STARTUP_SECONDS)
        if hello.get("op") != "ready":
            return BrokenChannel("its first message was not `ready`")
        channel.send(message, timeout=STARTUP_SECONDS)
        return None
    except (TimeoutError, ConnectionError) as exc:
        code = child.wait(0.5)
        os.set_blocking(out_r, False)
        try:
            output += os.read(out_r, OUTPUT_KEPT)
        except OSError:
            pass
        last = bytes(output).decode("utf-8", "replace").strip().splitlines()[-1:] or [str(exc)]
        return BrokenChannel(f"its interpreter did not start (exit code {code}): {last[0][:300]}")
