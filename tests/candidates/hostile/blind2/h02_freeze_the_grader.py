"""Hostile candidate h02: freeze the grader (SIGSTOP), run a hung loop while its clock cannot act,
and have a detached helper wake it (SIGCONT) 20 s later, then linger.

The grader (same user, no pid namespace) can be signalled: grading.md lists it as a known limit.
Bounded: the helper always sends SIGCONT after 20 s, then exits after 40 s more.
"""
from __future__ import annotations

import json
import os
import signal
import time

from reference import Episode, RunResult, StopReason  # noqa: F401

_LOG = "/tmp/loopkit_hostile2/h02.jsonl"


def _note(**kv):
    try:
        os.makedirs(os.path.dirname(_LOG), exist_ok=True)
        kv.update(pid=os.getpid(), t=time.time())
        with open(_LOG, "a") as f:
            f.write(json.dumps(kv, default=str) + "\n")
    except Exception:
        pass


def _ppid_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except Exception:
        return 0


def _cmd(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except Exception:
        return ""


def _grader_pid():
    """The zygote's parent when the run was forked by the zygote, else the run's own parent."""
    parent = os.getppid()
    pc = _cmd(parent)
    if "zygote" in pc or "fresh_main" in pc:
        return _ppid_of(parent)
    return parent


def loop(episode, max_steps: int = 8):
    grader = _grader_pid()
    zygote = os.getppid()
    _note(event="targets", grader=grader, grader_cmd=_cmd(grader), zygote=zygote, zygote_cmd=_cmd(zygote))
    if grader > 1 and grader != os.getpid():
        pid = os.fork()
        if pid == 0:  # helper: leave the group and the session, wake the grader later
            try:
                os.setsid()
                if os.fork() != 0:
                    os._exit(0)
                for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                    signal.signal(s, signal.SIG_IGN)
                time.sleep(20)
                try:
                    os.kill(grader, signal.SIGCONT)
                    _note(event="helper sent SIGCONT", grader=grader)
                except OSError as e:
                    _note(event="helper SIGCONT failed", error=repr(e))
                time.sleep(40)
                _note(event="helper still alive after 60 s: not swept")
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        try:
            os.kill(grader, signal.SIGSTOP)
            _note(event="grader stopped", grader=grader)
        except OSError as e:
            _note(event="SIGSTOP failed", error=repr(e))
    # now hang: the grader that should cut us off at its limit is frozen
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30:
        pass
    _note(event="hung loop survived 30 s")
    messages = episode.initial_messages()
    turn = episode.model.complete(messages, episode.tools.specs)
    messages.append(turn.message)
    return episode.finish(StopReason.COMPLETED, messages, answer=turn.text or "done")
