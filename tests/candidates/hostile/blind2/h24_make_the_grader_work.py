"""Hostile candidate h24: makes the grader's own process do the heavy work, where the run's limits do
not reach: the scripted model decodes, checks and tokenises every request in the grader's process,
and the report quotes the answer. Rotating per run (a counter in /tmp):
  0. a request whose history carries a 150 MB user message (the model "charges tokens for the whole
     request");
  1. a frame, in the channel's own framing, with a value replaced by 100,000 nested lists (a recursive
     decoder's RecursionError);
  2. the same with a 100,000-digit integer (Python's int-string limit: ValueError);
  3. a final answer of 150 MB handed to episode.finish (the report quotes what the user got).

Expected: the grader refuses an oversized or unreadable frame ("sent the grader something it cannot
read", or over a size limit), never a traceback; each report within the limit + 1 s; the grader's
memory does not grow by gigabytes; the report never holds the 150 MB (cut and counted).
"""
from __future__ import annotations

import json
import os
import socket
import time

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"
_BIG = 150 * 1024 * 1024
_CAPTURED: list = []


def _note(**kv):
    try:
        os.makedirs(_DIR, exist_ok=True)
        kv.update(pid=os.getpid(), t=time.time())
        with open(os.path.join(_DIR, "h24.jsonl"), "a") as f:
            f.write(json.dumps(kv, default=repr)[:4000] + "\n")
    except Exception:
        pass


def _counter():
    path = os.path.join(_DIR, "h24_counter")
    try:
        os.makedirs(_DIR, exist_ok=True)
        n = int(open(path).read()) if os.path.exists(path) else 0
        open(path, "w").write(str(n + 1))
        return n
    except Exception:
        return 0


def _tap():
    orig = socket.socket.sendall

    def sendall(self, data, *a):
        _CAPTURED.append((self, bytes(data)))
        return orig(self, data, *a)

    socket.socket.sendall = sendall
    return orig


def _like(msg, text):
    import dataclasses
    try:
        if dataclasses.is_dataclass(msg):
            return dataclasses.replace(msg, content=text)
        if hasattr(msg, "model_copy"):
            return msg.model_copy(update={"content": text})
    except Exception:
        pass
    return {**msg, "content": text} if isinstance(msg, dict) else msg


def _raw(kind, orig_sendall):
    if not _CAPTURED:
        _note(event="no frame captured")
        return
    sock, frame = _CAPTURED[0]
    plen, order = 0, None
    for n in (4, 8):
        for o in ("big", "little"):
            if len(frame) > n and int.from_bytes(frame[:n], o) == len(frame) - n:
                plen, order = n, o
    body = frame[plen:].decode("utf-8", "replace") if plen else frame.decode("utf-8", "replace").rstrip("\n")
    bomb = "[" * 100_000 + "]" * 100_000 if kind == "deep" else "9" * 100_000
    i = body.find(":")
    j = body.find(",", i)
    forged = (body[: i + 1] + bomb + body[j:]) if i > 0 and j > i else bomb
    data = forged.encode()
    raw = (len(data).to_bytes(plen, order) + data) if plen else data + b"\n"
    _note(event="raw bomb", kind=kind, bytes=len(raw), prefix=plen)
    orig_sendall(sock, raw)


def loop(episode, max_steps: int = 8):
    variant = _counter() % 4
    orig = _tap()
    messages = episode.initial_messages()
    _note(event="variant", variant=variant)
    t0 = time.monotonic()
    if variant == 0:
        big = list(messages)
        big[-1] = _like(big[-1], "x" * _BIG)
        try:
            episode.model.complete(big, episode.tools.specs)
            _note(event="150 MB request answered", seconds=time.monotonic() - t0)
        except BaseException as e:  # noqa: BLE001
            _note(event="150 MB request refused", error=repr(e)[:300], seconds=time.monotonic() - t0)
    turn = episode.model.complete(messages, episode.tools.specs)
    messages.append(turn.message)
    if variant in (1, 2):
        _raw("deep" if variant == 1 else "digits", orig)
        time.sleep(10)
    for _ in range(max_steps - 1):
        if not turn.tool_calls:
            break
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
    answer = turn.text or ""
    if variant == 3:
        answer = (answer + " ") * 1 + "y" * _BIG
    if turn.tool_calls:
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
        return episode.finish(StopReason.MAX_STEPS, messages, answer=answer)
    return episode.finish(StopReason.COMPLETED, messages, answer=answer)
