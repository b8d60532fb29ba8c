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
import time
from typing import Any, Callable

import pytest

from reference.sandbox.process import Child, Limits, killed_by, limit

GUARD_SECONDS = 600.0  # against a hang only: each run has its own limit, and a series ends well before this


def in_one_child(series: Callable[[], Any], memory_mb: int = Limits().memory_mb) -> Any:
    """`series()` in one forked child with `memory_mb` more address space than it inherits: its JSON-able value.
    The test fails, saying how, if the child ends without one (a crash, os._exit, the memory limit)."""
    Child.reap()
    read_end, write_end = os.pipe()

    def run() -> None:
        os.close(read_end)
        limit(Limits(GUARD_SECONDS, memory_mb))
        try:
            data = json.dumps({"value": series()}).encode()
        except BaseException as exc:  # said in the test's failure, not lost with the child
            data = json.dumps({"raised": f"{type(exc).__name__}: {exc}"}).encode()
        with os.fdopen(write_end, "wb") as out:
            out.write(data)
        os._exit(0)

    child = Child.fork(run)
    os.close(write_end)
    try:
        data, code = _read_all(read_end, time.monotonic() + GUARD_SECONDS), child.wait(GUARD_SECONDS)
    finally:
        child.kill()
        os.close(read_end)
    try:
        said = json.loads(data)
    except ValueError:  # nothing, or cut short
        ended = "ran past its guard" if code is None else killed_by(code) if code < 0 else f"exit code {code}"
        pytest.fail(f"the child that ran the series ended without a result ({ended})", pytrace=False)
    if "raised" in said:
        pytest.fail(f"the series raised {said['raised']}", pytrace=False)
    return said["value"]


def _read_all(fd: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    while time.monotonic() < deadline:
        if not select.select([fd], [], [], max(deadline - time.monotonic(), 0))[0]:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)
