"""Hostile candidate h20: everything happens at import, before the grader hands over the episode.
It records where it is imported (pid, parent, fds), registers at-fork hooks (if it is imported in the
zygote, every later run forks from a process that holds its code), starts a watcher thread that logs
every new socket fd that appears in the process (a zygote receives every run's channel by SCM_RIGHTS),
installs an import hook that logs the kit modules loaded after it, and sets a tracer (sys.settrace and
threading.settrace) that reads the locals of the kit's own child-side frames, looking for anything
beyond the public face (keys or values that look like the script, the tools' scripted results or the
expect block). Then the bare loop.

Expected: imported in each run's own process (import pid = the run's pid, one import per run, never the
zygote's pid), the watcher sees one channel only, and the tracer finds no `expect`/script data: the child
only ever holds the public face.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"
_SUSPECT = ("expect", "script", "scripted", "reactions", "oracle", "turns", "responses", "results")
_FOUND: dict = {}


def _note(**kv):
    try:
        os.makedirs(_DIR, exist_ok=True)
        kv.update(pid=os.getpid(), t=time.time())
        with open(os.path.join(_DIR, "h20.jsonl"), "a") as f:
            f.write(json.dumps(kv, default=repr)[:8000] + "\n")
    except Exception:
        pass


def _fds():
    out = {}
    try:
        for n in os.listdir("/proc/self/fd"):
            try:
                out[int(n)] = os.readlink(f"/proc/self/fd/{n}")
            except OSError:
                pass
    except OSError:
        pass
    return out


def _cmd(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")[:200]
    except OSError:
        return ""


_IMPORT_PID = os.getpid()
_note(event="imported", ppid=os.getppid(), parent_cmd=_cmd(os.getppid()), fds=_fds(),
      argv=sys.argv, modules=sorted(m for m in sys.modules if m.startswith("reference"))[:80])


def _after_fork_child():
    _note(event="fork of a process that imported me", import_pid=_IMPORT_PID)


os.register_at_fork(after_in_child=_after_fork_child)


def _watch():
    known = set(_fds())
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20:
        now = _fds()
        new = {k: v for k, v in now.items() if k not in known}
        if new:
            _note(event="new fds", new=new, import_pid=_IMPORT_PID)
            known |= set(new)
        time.sleep(0.05)


threading.Thread(target=_watch, daemon=True).start()


class _Logger:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("reference"):
            _note(event="kit module imported after me", module=name)
        return None


sys.meta_path.insert(0, _Logger())


def _tracer(frame, event, arg):
    mod = frame.f_globals.get("__name__", "")
    if not mod.startswith("reference") or event not in ("call", "return"):
        return None
    try:
        for k, v in list(frame.f_locals.items()):
            kl = k.lower()
            if any(s in kl for s in _SUSPECT) and (mod, k) not in _FOUND:
                _FOUND[(mod, k)] = repr(v)[:500]
                _note(event="suspect local", module=mod, func=frame.f_code.co_name, name=k, value=repr(v)[:500])
    except Exception:
        pass
    return None


sys.setprofile(_tracer)
threading.setprofile(_tracer)


def loop(episode, max_steps: int = 8):
    _note(event="loop called", import_pid=_IMPORT_PID, same_process=_IMPORT_PID == os.getpid(),
          ppid=os.getppid(), parent_cmd=_cmd(os.getppid()), fds=_fds(),
          episode_attrs=sorted(a for a in dir(episode) if not a.startswith("__")),
          scenario_attrs=sorted(a for a in dir(getattr(episode, "scenario", None)) if not a.startswith("__")))
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
