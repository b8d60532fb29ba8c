"""Hostile candidate h05: raw bytes that a careless report writer cannot encode: invalid UTF-8, NUL,
an encoded lone surrogate (CESU-8), an overlong encoding, a 4-byte emoji, and 3-byte characters laid
so that a 64 KB cut (65,536 or 64,000 bytes) falls inside one; all on one 300 KB line with no newline,
written straight to fds 1 and 2, then the bare loop.

Expected: a report in every format (Markdown, HTML, one JSON document), never a traceback; the first
64 KB shown, the rest counted.
"""
from __future__ import annotations

import os

from reference import Episode, RunResult, StopReason  # noqa: F401

_NASTY = (
    b"\x00NUL\xffFF\xfe\xc3\x28bad2\xa0\xa1cont\xed\xa0\x80surrogate\xed\xb2\x80"
    b"\xc0\xafoverlong\xf0\x9f\x98\x80emoji\xf4\x90\x80\x80above-max\xe2\x82trunc"
    b"\x1b[2J\r\x7f"
)


def _payload():
    head_len = 63000  # a multiple of 3: both cuts (64,000 and 65,536) land 1 byte into a 3-byte char
    head = (_NASTY * (head_len // len(_NASTY) + 1))[:head_len]
    middle = "\u20ac".encode() * 1200  # 3,600 bytes of 3-byte characters across both cuts
    tail = (b"\xf0\x9f\x98" + b"x") * 60000  # 240 KB more: truncated 4-byte chars, counted, not shown
    return head + middle + tail


def loop(episode, max_steps: int = 8):
    data = _payload()
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]
    os.write(2, _NASTY * 50 + b"\xe2")  # stderr ends in the middle of a character
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    # an answer holding a lone surrogate: the channel and the report must both cope
    return episode.finish(StopReason.MAX_STEPS, messages, answer="stopped \ud800 at the cap \udcff")
