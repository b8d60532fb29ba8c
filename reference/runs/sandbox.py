"""A candidate's loop in a child process, on a leash: a wall-clock limit, a memory limit, a kill switch.

The grader's process keeps the episode (model, tools, clock, ledger) and serves it over a channel
(reference/harness/remote.py); the child is forked, so a loop defined anywhere (a closure, a test's
local function) runs as it is, and a loop given as a file is imported in the child, where its
top-level code is as contained as the rest. Whatever the child does, `run_in_child` returns within
the time limit (plus the moment it takes to kill a process): the child, its threads and any process
it started are killed, never waited for.

Linux (fork, RLIMIT_AS, process groups); on other systems the grader can run a trusted loop in
process (`run_candidate(..., sandbox=False)`).
"""
from __future__ import annotations

import gc
import hashlib
import importlib.util
import multiprocessing
import os
import resource
import select
import selectors
import signal
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..core.codec import decode, encode, encode_exception
from ..core.result import RunResult
from ..harness.channel import Channel, ChannelClosed, FrameTooLarge
from ..harness.episode import Episode
from ..harness.remote import EpisodeServer, RemoteEpisode, claim_from, encode_claim
from .failures import BrokenChannel, CandidateExited, CandidateRaised, MemoryLimit, ProcessDied, TimeLimit

try:
    import fcntl  # Linux and other Unixes; the pipe-size constant is Linux's
except ImportError:  # pragma: no cover - Windows has no fork either
    fcntl = None  # type: ignore[assignment]

OUTPUT_KEPT = 64 * 1024  # of what the loop prints, this much is kept and shown; the rest is counted
LOOP_NAMES = ("loop", "react_loop")  # the function a candidate file must define (or name it: file.py::fn)


@dataclass
class Limits:
    seconds: float = 5.0  # wall clock, from the fork to the loop's result
    memory_mb: int = 1024  # address space the child may add to what it inherits


@dataclass
class ChildReport:
    """What came back from the child: the loop's claim, or what it returned instead, or what ended it."""

    claim: dict[str, Any] | None = None
    returned: str | None = None
    error: BaseException | None = None
    probe: Any = None
    output: str = ""
    output_bytes: int = 0


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def run_in_child(loop: Callable[..., Any] | str | Path, episode: Episode, server: EpisodeServer, max_steps: int,
                 limits: Limits, stop: Callable[[], BaseException | None],
                 probe: Callable[[Any], Any] | None = None) -> ChildReport:
    """Fork, run `loop(remote_episode, max_steps=...)` in the child, serve it until it reports or must
    end. `stop()` is asked after every request (the runaway cap): an error it returns ends the run."""
    parent_end, child_end = Channel.pair()
    out_r, out_w = os.pipe()
    _widen(out_w)
    context = multiprocessing.get_context("fork")
    child = context.Process(target=_child, args=(loop, episode, child_end, out_r, out_w, max_steps, limits, probe),
                            daemon=True)
    report = ChildReport()
    output = bytearray()
    try:
        gc.freeze()  # the child inherits every object as it is: a collection there must not touch (copy) them
        try:
            with warnings.catch_warnings():
                # Python 3.12+ warns when a process with threads forks (a notebook's kernel has some): the
                # child runs only this module's code, with fresh output streams, and a deadlock there would
                # still end at the time limit
                warnings.filterwarnings("ignore", ".*fork", DeprecationWarning)
                child.start()
        finally:
            gc.unfreeze()
        child_end.close()
        os.close(out_w)
        _serve(child, parent_end, out_r, server, limits, stop, report, output)
    finally:
        _kill(child)
        parent_end.close()
        os.close(out_r)
    report.output = bytes(output[:OUTPUT_KEPT]).decode("utf-8", "replace")
    if isinstance(report.error, MemoryError):
        report.error = MemoryLimit(limits.memory_mb)
    return report


def _serve(child: Any, channel: Channel, out_r: int, server: EpisodeServer, limits: Limits,
           stop: Callable[[], BaseException | None], report: ChildReport, output: bytearray) -> None:
    deadline = time.monotonic() + limits.seconds
    selector = selectors.DefaultSelector()
    selector.register(channel.sock, selectors.EVENT_READ, "channel")
    selector.register(out_r, selectors.EVENT_READ, "output")
    selector.register(child.sentinel, selectors.EVENT_READ, "exit")
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                report.error = TimeLimit(limits.seconds, len(server.episode.ledger.steps))
                return
            ready = {key.data for key, _ in selector.select(left)}
            if "output" in ready and not _drain(out_r, output, report):
                selector.unregister(out_r)
            if "channel" in ready or "exit" in ready:
                try:
                    if "channel" not in ready and not select.select([channel.sock], [], [], 0)[0]:
                        raise ChannelClosed("the child exited with nothing more to say")
                    message = channel.receive(timeout=max(deadline - time.monotonic(), 0.01))
                except TimeoutError:
                    report.error = TimeLimit(limits.seconds, len(server.episode.ledger.steps))
                    return
                except FrameTooLarge as exc:
                    report.error = BrokenChannel(str(exc))
                    return
                except ChannelClosed:
                    child.join(max(min(deadline - time.monotonic(), 1.0), 0.01))
                    report.error = ProcessDied(child.exitcode) if child.exitcode is not None else \
                        TimeLimit(limits.seconds, len(server.episode.ledger.steps))
                    return
                if _final(message, report, server):
                    return
                reply = server.handle(message)
                report.error = stop()
                if report.error is not None:
                    return
                try:
                    channel.send(reply, timeout=max(deadline - time.monotonic(), 0.01))
                except TimeoutError:
                    report.error = TimeLimit(limits.seconds, len(server.episode.ledger.steps))
                    return
                except ChannelClosed:
                    continue  # the child is gone: its exit is the next event
    finally:
        selector.close()


def _final(message: dict[str, Any], report: ChildReport, server: EpisodeServer) -> bool:
    """The child's last word: the loop's result, or what ended it. False for an ordinary request."""
    op = message.get("op")
    if op == "result":
        report.probe = decode(message.get("probe"))
        if message.get("claim") is None:
            report.returned = str(message.get("returned", "something else"))[:300]
            return True
        try:
            report.claim = claim_from(message["claim"])
        except (TypeError, ValueError) as exc:
            report.returned = f"a RunResult that does not hold ({exc})"
        return True
    if op == "exit":
        report.error = CandidateExited(decode(message.get("code")))
        return True
    if op == "raised":
        number = message.get("raised")
        data = message.get("error") or {}
        if isinstance(number, int) and number in server.raised:
            report.error = server.raised[number]  # ours, handed to the loop and let through: as it was
        elif data.get("__exc__") == "builtins:MemoryError":
            report.error = MemoryError()
        else:
            report.error = CandidateRaised(str(data.get("type", "an exception"))[:200], str(data.get("message", "")))
        return True
    return False


def _drain(fd: int, output: bytearray, report: ChildReport) -> bool:
    try:
        chunk = os.read(fd, 1 << 20)
    except OSError:
        return False
    report.output_bytes += len(chunk)
    if len(output) < OUTPUT_KEPT:
        output += chunk[:OUTPUT_KEPT - len(output)]
    return bool(chunk)


def _kill(child: Any) -> None:
    """The child's whole process group: its threads die with it, and so do processes it forked."""
    if child.pid is None:
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        child.kill()
    except (ProcessLookupError, AttributeError):
        pass
    # not joined: a killed child is reaped by multiprocessing at the next start (or at exit), so the
    # grader never waits for the kernel to tear a process down


def _widen(fd: int) -> None:
    """A bigger pipe for the child's output, so that a flood drains in fewer reads (Linux)."""
    if fcntl is None or not sys.platform.startswith("linux"):
        return
    try:
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except OSError:
        pass


# ------------------------------------------------------------------------------------ in the child

def _child(loop: Any, episode: Episode, channel: Channel, out_r: int, out_w: int, max_steps: int, limits: Limits,
           probe: Callable[[Any], Any] | None) -> None:
    os.close(out_r)
    message: dict[str, Any]
    try:
        _contain(out_w, limits)
        remote = RemoteEpisode.mirroring(channel, episode)
        if isinstance(loop, (str, Path)):
            loop = load_loop(loop)
            remote.loop_name = getattr(loop, "__name__", "candidate")
        result = loop(remote, max_steps=max_steps)
        if isinstance(result, RunResult):
            message = {"op": "result", "claim": encode_claim(result)}
        else:
            message = {"op": "result", "claim": None, "returned": _returned(result)}
        if probe is not None:
            message["probe"] = encode(probe(remote))
    except SystemExit as exc:
        message = {"op": "exit", "code": encode(exc.code if isinstance(exc.code, (int, str, type(None))) else
                                                repr(exc.code))}
    except BaseException as exc:  # KeyboardInterrupt and any BaseException the loop raised: reported as such
        message = {"op": "raised", "error": encode_exception(exc), "raised": getattr(exc, "remote_number", None)}
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # a closed or broken stream must not lose the report
        pass
    try:
        channel.send(message)
    finally:
        os._exit(0)  # no atexit, no waiting on the loop's threads: the grader has what it needs


def _contain(out_w: int, limits: Limits) -> None:
    """Own process group (to be killed whole), output to the grader, memory capped, CPU as a backstop."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    os.close(out_w)
    os.close(devnull)
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)
    ceiling = _address_space() + limits.memory_mb * 1024 * 1024
    seconds = int(limits.seconds) + 2  # if the grader itself is gone, a spinning child still stops
    for limit, value in ((getattr(resource, "RLIMIT_AS", None), ceiling), (resource.RLIMIT_CPU, seconds)):
        try:
            if limit is not None:
                resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):  # macOS refuses RLIMIT_AS: there the time limit is the only leash
            pass


def _address_space() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError):
        return 2 * 1024 ** 3


def _returned(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = "?"
    return f"{type(value).__name__} ({text[:80]})"


def load_loop(spec: str | Path) -> Callable[..., Any]:
    """The loop in a candidate file: `path.py` (its `loop`, else its `react_loop`) or `path.py::name`."""
    path_text, _, name = str(spec).partition("::")
    path = Path(path_text).resolve()
    module_name = f"_loopkit_candidate_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise FileNotFoundError(f"cannot import {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    module_spec.loader.exec_module(module)
    for candidate in ([name] if name else LOOP_NAMES):
        found = getattr(module, candidate, None)
        if callable(found):
            return found
    raise AttributeError(f"{path.name} defines no function named {' or '.join([name] if name else LOOP_NAMES)}")
