"""A byte stream carrying JSON messages, one frame each: a 4-byte length, then UTF-8 JSON.

The grader and a candidate's process talk through one of these (reference/sandbox/remote.py says
what they say). JSON, not pickle: the grader must never run code that the other side chose, and a
later HTTP transport carries the same messages.
"""
from __future__ import annotations

import json
import socket
import struct
import time
from typing import Any

MAX_FRAME = 32 * 1024 * 1024  # a message bigger than this is refused (the catalogue's longest history: < 1 MB)
HEADER = struct.Struct(">I")
BUFFER = 4 * 1024 * 1024  # asked of the OS for each direction (it may grant less)


class ChannelClosed(ConnectionError):
    """The other side closed the stream (or broke the framing)."""


class FrameTooLarge(ConnectionError):
    """The other side announced a message bigger than MAX_FRAME."""


class Garbled(ConnectionError):
    """The other side sent a frame that is not a JSON object."""


class NotFinite(ValueError):
    """NaN or an infinity, which JSON itself does not have."""


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise NotFinite(text)
    return value


def _refuse(text: str) -> Any:
    raise NotFinite(text)


class Channel:
    """`finite_only`: a frame holding NaN or an infinity (or a number too large for a float) is Garbled; the
    grader's end reads this way, so that no such number reaches its books or its checks."""

    def __init__(self, sock: socket.socket, max_frame: int = MAX_FRAME, finite_only: bool = False):
        self.sock = sock
        self.max_frame = max_frame
        self.finite_only = finite_only

    def send(self, message: dict[str, Any], timeout: float | None = None) -> None:
        """Raises TimeoutError if the other side does not take it in time."""
        # a lone surrogate (text no UTF-8 can hold) goes as JSON's own \udXXX escape, and comes back as it was
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")
        self.sock.settimeout(timeout)
        try:
            self.sock.sendall(HEADER.pack(len(data)) + data)
        except socket.timeout:
            raise TimeoutError("the other side did not read the message in time") from None
        except OSError as exc:
            raise ChannelClosed(f"the stream is closed ({exc})") from None

    def receive(self, timeout: float | None = None) -> dict[str, Any]:
        """One message; `timeout` bounds the whole frame. Raises ChannelClosed, FrameTooLarge, Garbled, TimeoutError."""
        deadline = None if timeout is None else time.monotonic() + timeout
        (size,) = HEADER.unpack(self._exactly(HEADER.size, deadline))
        if size > self.max_frame:
            raise FrameTooLarge(f"a message of {size:,} bytes (at most {self.max_frame:,})")
        data = self._exactly(size, deadline)
        try:
            strict = {"parse_constant": _refuse, "parse_float": _finite} if self.finite_only else {}
            message = json.loads(data.decode("utf-8"), **strict)
        except NotFinite as exc:
            raise Garbled(f"a number that is not finite ({str(exc)[:20]}): JSON has no NaN or infinity") from None
        except (ValueError, RecursionError):
            raise Garbled("a message that is not valid JSON (or nested too deeply)") from None
        if not isinstance(message, dict):
            raise Garbled("a message that is not a JSON object")
        return message

    def _exactly(self, size: int, deadline: float | None) -> bytes:
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the other side did not finish its message in time")
                self.sock.settimeout(left)
            else:
                self.sock.settimeout(None)
            try:
                n = self.sock.recv_into(view[got:], size - got)
            except socket.timeout:
                raise TimeoutError("the other side did not finish its message in time") from None
            except OSError as exc:
                raise ChannelClosed(f"the stream is closed ({exc})") from None
            if n == 0:
                raise ChannelClosed("the other side closed the stream")
            got += n
        return bytes(buffer)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()

    @classmethod
    def pair(cls) -> tuple["Channel", "Channel"]:
        a, b = socket.socketpair()
        for sock in (a, b):  # room for a long history in one go: fewer round trips of the scheduler
            for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
                try:
                    sock.setsockopt(socket.SOL_SOCKET, option, BUFFER)
                except OSError:
                    pass
        return cls(a), cls(b)
