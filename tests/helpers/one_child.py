"""A series of a learner's runs in one forked child: one fork for the series instead of one per run.

`run_candidate` forks a limited child for each run (reference/sandbox/child.py). A test that runs a loop on a
whole catalogue pays for ~60 forks that way; here the series runs in one child, under the same memory limit,
each run in process under its wall-clock alarm (`sandbox="in-process"`, as a `loopkit check` session runs
them). The child ends with the series, so nothing a run does reaches the test's process. The test's own
`run_candidate` calls stay as they are; only where they run changes.
"""
from __future__ import annotations

import json
import os
import select
from typing import Any, Callable

import pytest

from reference.sandbox.process import Child, Limits, killed_by, limit

# Against a hang only: each run meets its own alarm within seconds; this is for what the alarm cannot interrupt
# (a hang inside C code), which would otherwise hold the test for ever.
QUIET_SECONDS = 120.0


def in_one_child(series: Callable[[Callable[[str], None]], Any], memory_mb: int = Limits().memory_mb) -> Any:
    """`series(starting)` in one forked child with `memory_mb` more address space than it inherits: its JSON-able
    value. The series calls `starting(name)` before each run; the test fails, naming the last run started, if
    the child ends without a value (a crash, os._exit, the memory limit) or says nothing for QUIET_SECONDS."""
    Child.reap()
    read_end, write_end = os.pipe()

    def run() -> None:
        os.close(read_end)
        limit(Limits(QUIET_SECONDS, memory_mb))
        out = os.fdopen(write_end, "w", encoding="utf-8", buffering=1)

        def starting(name: str) -> None:
            out.write(json.dumps({"starting": name}) + "\n")

        try:
            out.write(json.dumps({"value": series(starting)}) + "\n")
        except BaseException as exc:  # said in the test's failure, not lost with the child
            out.write(json.dumps({"raised": f"{type(exc).__name__}: {exc}"}) + "\n")
        out.close()
        os._exit(0)

    child = Child.fork(run)
    os.close(write_end)
    last, said = None, None
    try:
        for line in _lines(read_end):
            message = json.loads(line)
            last = message.get("starting", last)
            if "starting" not in message:
                said = message
        code = child.wait(10.0)  # it has closed its end: exiting (what it said decides, not when it ends)
    finally:
        child.kill()
        os.close(read_end)
    where = f" (during the run `{last}`)" if last else ""
    if said is None:
        ended = "said nothing for too long" if code is None else killed_by(code) if code < 0 else f"exit code {code}"
        pytest.fail(f"the child that ran the series ended without a result: {ended}{where}", pytrace=False)
    if "raised" in said:
        pytest.fail(f"the series raised {said['raised']}{where}", pytrace=False)
    return said["value"]


def _lines(fd: int):
    """Whole lines from `fd` until it closes, or until it has said nothing for QUIET_SECONDS."""
    pending = b""
    while select.select([fd], [], [], QUIET_SECONDS)[0]:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        pending += chunk
        *whole, pending = pending.split(b"\n")
        yield from (line.decode("utf-8") for line in whole if line)
