"""Hostile candidate h16: uses the one channel from several places at once. Four threads ask the model
at the same time (their frames may interleave on the socket), and a forked child that shares the
channel keeps asking the model and executing tools for 10 s after the parent has returned its result,
holding stdout open and writing to it. The parent's own answer is the first that comes back.

Expected: the grader counts every request it received (model_calls at least what the log says was
answered), serves them one at a time or ends the run as unreadable, never mixes up the books; frames
after the result change nothing; the child is killed in the sweep; report within the limit + 1 s.
"""
from __future__ import annotations

import json
import os
import threading
import time

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"


def _note(**kv):
    try:
        os.makedirs(_DIR, exist_ok=True)
        kv.update(pid=os.getpid(), t=time.time())
        with open(os.path.join(_DIR, "h16.jsonl"), "a") as f:
            f.write(json.dumps(kv, default=repr) + "\n")
    except Exception:
        pass


def loop(episode, max_steps: int = 8):
    messages = episode.initial_messages()
    answers, errors = [], []

    def ask(i):
        try:
            t = episode.model.complete(list(messages), episode.tools.specs)
            answers.append((i, bool(t.tool_calls), (t.text or "")[:80]))
        except BaseException as e:  # noqa: BLE001
            errors.append((i, repr(e)[:200]))

    threads = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(3)
    _note(event="concurrent asks", answered=answers, errors=errors)
    if os.fork() == 0:
        try:
            t0, n = time.monotonic(), 0
            while time.monotonic() - t0 < 10:
                try:
                    turn = episode.model.complete(list(messages), episode.tools.specs)
                    n += 1
                    for call in turn.tool_calls or []:
                        episode.tools.execute(call)
                except BaseException as e:  # noqa: BLE001
                    _note(event="late child error", n=n, error=repr(e)[:200])
                    time.sleep(0.2)
                try:
                    os.write(1, b"late output from the child\n")
                except OSError:
                    pass
            _note(event="late child survived 10 s", requests=n)
        finally:
            os._exit(0)
    turn = episode.model.complete(messages, episode.tools.specs)
    messages.append(turn.message)
    steps = 1
    while turn.tool_calls and steps < max_steps:
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        steps += 1
    if turn.tool_calls:
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
        return episode.finish(StopReason.MAX_STEPS, messages)
    return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
