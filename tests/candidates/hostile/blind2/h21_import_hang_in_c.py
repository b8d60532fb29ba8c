"""Hostile candidate h21: hangs at import, before it could ever say `ready`, and makes itself hard to stop:
every catchable signal blocked (pthread_sigmask) and ignored, then 40 s inside one C call (libc sleep via
ctypes: no return to the interpreter, so no Python signal handler or alarm ever runs). Bounded: the
process gives up after 40 s on its own.

Expected: the time limit covers the import, not only what follows `ready` ("a file that ... hangs ...
gets a report that says so"): each run is killed (SIGKILL) at the limit, the report says the loop ran
past the time limit (or hung at import), after two such runs the rest are not run, and the whole grade
takes about 2 x (limit + ~1 s) plus the zygote's start. A failed defence: a grade that takes 40 s or more
per run, or a run reported as anything but a time-out.
"""
from __future__ import annotations

import ctypes
import json
import os
import signal
import time

from reference import Episode, RunResult, StopReason  # noqa: F401

try:
    os.makedirs("/tmp/loopkit_hostile2", exist_ok=True)
    with open("/tmp/loopkit_hostile2/h21.jsonl", "a") as _f:
        _f.write(json.dumps({"event": "import started", "pid": os.getpid(), "t": time.time()}) + "\n")
except Exception:
    pass

for _s in signal.valid_signals():
    if _s in (signal.SIGKILL, signal.SIGSTOP):
        continue
    try:
        signal.signal(_s, signal.SIG_IGN)
    except (OSError, ValueError, RuntimeError):
        pass
signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
ctypes.CDLL(None).sleep(40)

try:
    with open("/tmp/loopkit_hostile2/h21.jsonl", "a") as _f:
        _f.write(json.dumps({"event": "import finished after 40 s: not killed", "pid": os.getpid(),
                             "t": time.time()}) + "\n")
except Exception:
    pass


def loop(episode, max_steps: int = 8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
