"""Processes the code under test left running: found, stopped, counted; and the grader's memory closed (Linux).

A sandboxed child runs in its own process group and is killed whole, but a process that left the group
(`Popen(..., start_new_session=True)`, os.setsid, os.setpgid, a daemon that double-forks) outlives it and is
re-parented to PID 1. The `loopkit check` and `loopkit grade` commands (short-lived CLI processes, nothing
else's) mark themselves child subreapers first, so such processes are re-parented to them instead; after
each session (grade: after each run) they kill and reap every child they did not start themselves, again
until none is left. `loopkit grade` also makes itself non-dumpable: a process of the same user can then
neither read nor write its memory (/proc/PID/mem) nor open its descriptors (/proc/PID/fd/1: the report).

Only the CLI does this: run_candidate in a notebook kernel or a pytest run (the fork sandbox) does not chase
processes that escaped its process group, and neither does plain pytest.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

PR_SET_DUMPABLE, PR_GET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 3, 36


def _prctl(option: int, value: int) -> int | None:
    """prctl(2), or None where there is none (not Linux)."""
    try:
        import ctypes  # only the CLI's own process needs it, on Linux

        return int(ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0))
    except (ImportError, OSError, AttributeError):
        return None


def become_subreaper() -> bool:
    """Orphans of this process's descendants come to it, not to PID 1; False where that is not possible."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1) == 0


def is_non_dumpable() -> bool:
    """Is this process closed to others of its user (become_non_dumpable)?"""
    return _prctl(PR_GET_DUMPABLE, 0) == 0


def become_non_dumpable() -> bool:
    """No process but root may read or write this one's memory or open its descriptors through /proc (and no
    core dump); a child forked later inherits it, an exec'd one does not. False where that is not possible."""
    return _prctl(PR_SET_DUMPABLE, 0) == 0 and _prctl(PR_GET_DUMPABLE, 0) == 0


def children() -> set[int]:
    """This process's children, from /proc (empty where /proc is missing)."""
    found: set[int] = set()
    try:
        for task in Path("/proc/self/task").iterdir():
            found.update(int(pid) for pid in (task / "children").read_text().split())
        return found
    except (OSError, ValueError):
        pass
    me = os.getpid()
    try:
        entries = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return found
    for entry in entries:
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                found.add(int(entry))
        except (OSError, ValueError, IndexError):
            pass
    return found


def stop_orphans(own: set[int], seconds: float = 2.0) -> int:
    """Kill and reap every child of this process not in `own` (the ones it started), again until none is left
    (a killed process's own children come here as it exits): how many there were."""
    deadline = time.monotonic() + seconds
    stopped: set[int] = set()
    while time.monotonic() < deadline:
        strangers = children() - own
        if not strangers:
            break
        for pid in strangers:
            if not _exited(pid):  # a zombie has stopped already: only reaped
                stopped.add(pid)
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in strangers:
            _reap(pid, deadline)
    return len(stopped)


def _exited(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except (OSError, IndexError):
        return True


def wait_for(pids: set[int], seconds: float = 1.0) -> None:
    """Reap these (killed) children, so that the processes they leave are re-parented here before the search."""
    deadline = time.monotonic() + seconds
    for pid in pids:
        _reap(pid, deadline)


def _reap(pid: int, deadline: float) -> None:
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] or time.monotonic() > deadline:
                return
        except ChildProcessError:
            return
        time.sleep(0.001)
