"""Hostile candidate h12: hold memory that an address-space limit (RLIMIT_AS) does not count: page cache
of a memfd written with write(2), never mapped, up to 3 GB (about three times a default limit of "1 GB
above the grader's own"), plus a 64 MB file in /dev/shm that outlives the run. Safety stop: it never
leaves less than 4 GB of MemAvailable on the machine. Then the bare loop, so the run otherwise looks clean.

Expected: a grader that keeps "a memory limit" reports the run as over its memory limit (or the writes
fail with ENOMEM/EFBIG); a failed defence is a normal grade while the log shows ~3 GB held.
"""
from __future__ import annotations

import json
import os
import time

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"
_CHUNK = b"\xa5" * (16 << 20)
_TARGET_MB = 3072


def _note(**kv):
    try:
        os.makedirs(_DIR, exist_ok=True)
        kv.update(pid=os.getpid(), t=time.time())
        with open(os.path.join(_DIR, "h12.jsonl"), "a") as f:
            f.write(json.dumps(kv) + "\n")
    except Exception:
        pass


def _mem_available_mb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


def _status(keys=("VmSize", "VmRSS", "RssShmem", "VmPeak")):
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            k = line.split(":")[0]
            if k in keys:
                out[k] = line.split(":", 1)[1].strip()
    return out


def _hold():
    held = 0
    fds = []
    try:
        fd = os.memfd_create("h12", 0)
        fds.append(fd)
        while held < _TARGET_MB and _mem_available_mb() > 4096:
            os.write(fd, _CHUNK)
            held += 16
        _note(event="memfd held", mb=held, status=_status())
    except OSError as e:
        _note(event="memfd stopped", mb=held, error=repr(e), status=_status())
    try:
        path = f"/dev/shm/loopkit_hostile2_h12_{os.getpid()}"
        with open(path, "wb") as f:
            for _ in range(4):
                f.write(_CHUNK)
        _note(event="dev/shm file left", path=path, mb=64)
    except OSError as e:
        _note(event="dev/shm refused", error=repr(e))
    return fds


def loop(episode, max_steps: int = 8):
    keep = _hold()  # noqa: F841  (held until the process ends)
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
