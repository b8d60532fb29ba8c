"""What a run made in process (reference/sandbox/inline.py) may change that a fork would have thrown away.

In the fork sandbox a run's process ends with the run: what the loop printed went down a pipe (the first
64 KB kept, the rest counted), and whatever it did to the process (a lower recursion limit, warnings made
errors, sys.stdout closed or replaced, fds 0 to 2 closed, signal handlers, the working directory) went
with it. A run made in process shares it with the tests that follow, so `Printed` keeps its output the
same bounded way and `Kept` puts the rest back after the run (`ProcessState`; the `loopkit check` session
also puts it back after each phase of each test, for a test that calls the learner's code itself). Each
costs a handful of system calls: a test may make ~200 runs.

What is not put back (module state, threads, memory, other fds) is the session's to live with: a test
that fails after several runs is judged again with a fork per run (reference/sandbox/check_session.py).
"""
from __future__ import annotations

import io
import os
import signal
import sys
import warnings
from typing import Any

from .process import OUTPUT_KEPT  # what the fork sandbox keeps of a run's output

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))
STD_FDS = (0, 1, 2)


class Book:
    """What the run printed to sys.stdout and sys.stderr, in order: the first OUTPUT_KEPT bytes, the rest counted."""

    def __init__(self) -> None:
        self.kept: list[bytes] = []
        self.kept_bytes = 0
        self.total = 0

    def add(self, data: bytes, size: int | None = None) -> None:
        self.total += len(data) if size is None else size
        if self.kept_bytes < OUTPUT_KEPT:
            part = data[:OUTPUT_KEPT - self.kept_bytes]
            self.kept.append(part)
            self.kept_bytes += len(part)

    def text(self) -> str:
        return b"".join(self.kept).decode("utf-8", "replace")


class _Bytes(io.RawIOBase):
    """sys.stdout.buffer of a `Printed`."""

    def __init__(self, book: Book, fd: int):
        self._book, self._fd = book, fd

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        data = bytes(data)
        self._book.add(data)
        return len(data)

    def fileno(self) -> int:
        return self._fd


class Printed(io.TextIOBase):
    """sys.stdout (or sys.stderr) during a run: written into the run's `Book`, never into pytest's capture."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, book: Book, fd: int):
        self._book, self._fd = book, fd
        self.buffer = _Bytes(book, fd)

    def writable(self) -> bool:
        return True

    def write(self, text: Any) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text.isascii():  # a byte per character: only what is kept is encoded (a flood costs no copy)
            self._book.add(text[:max(OUTPUT_KEPT - self._book.kept_bytes, 0)].encode(), len(text))
        else:
            self._book.add(text.encode("utf-8", "replace"))
        return len(text)

    def fileno(self) -> int:  # the process's own descriptor, as a forked run's sys.stdout has
        return self._fd

    def isatty(self) -> bool:
        return False


class ProcessState:
    """The process-wide state that a run, or a test calling the learner's code itself, may change: noted, then
    put back (`note()`, `put_back()`). fds 0 to 2 are put back from `std_fds` (the session's duplicates, made as
    it started) or else from duplicates made here when noted: whichever pass makes a run, the process after it
    is the one before it."""

    def __init__(self, std_fds: list[int] | None = None):
        self.std_fds = std_fds

    def note(self) -> None:
        self.streams = (sys.stdin, sys.stdout, sys.stderr)
        self.recursion = sys.getrecursionlimit()
        self.filters = list(warnings.filters)
        self.handlers = [(number, signal.getsignal(number)) for number in SIGNALS]
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, []) if hasattr(signal, "pthread_sigmask") else None
        try:
            self.cwd: str | None = os.getcwd()
        except OSError:
            self.cwd = None
        self.own_fds = None if self.std_fds else [_dup(fd) for fd in STD_FDS]

    def put_back(self) -> None:
        sys.stdin, sys.stdout, sys.stderr = self.streams
        if sys.getrecursionlimit() != self.recursion:
            sys.setrecursionlimit(self.recursion)
        if warnings.filters != self.filters:
            warnings.filters[:] = self.filters
            warnings._filters_mutated()  # type: ignore[attr-defined]  # the module's caches see the change
        for number, handler in self.handlers:
            if handler is not None and signal.getsignal(number) is not handler:
                signal.signal(number, handler)
        if self.mask is not None and signal.pthread_sigmask(signal.SIG_BLOCK, []) != self.mask:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        if self.cwd is not None:
            try:
                if os.getcwd() != self.cwd:
                    os.chdir(self.cwd)
            except OSError:  # the directory it moved into is gone, or the one it left
                try:
                    os.chdir(self.cwd)
                except OSError:
                    pass
        if self.std_fds:
            restore_std_fds(self.std_fds)
        elif self.own_fds is not None:
            restore_std_fds(self.own_fds)
            for copy in self.own_fds:
                if copy is not None:
                    try:
                        os.close(copy)
                    except OSError:  # the run closed it (os.closerange)
                        pass


class Kept:
    """The process-wide state a run may change, noted before it and put back after it (`with Kept() as book`);
    what the run prints goes into the book."""

    def __init__(self, std_fds: list[int] | None = None):
        self.state = ProcessState(std_fds)
        self.book = Book()

    def __enter__(self) -> Book:
        self.state.note()
        sys.stdout, sys.stderr = Printed(self.book, 1), Printed(self.book, 2)
        return self.book

    def __exit__(self, *exc: Any) -> None:
        self.state.put_back()


def _dup(fd: int) -> int | None:
    try:
        return os.dup(fd)
    except OSError:  # closed already: nothing to put back
        return None


def same_file(a: int, b: int) -> bool:
    try:
        one, two = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def restore_std_fds(saved: list[int | None]) -> None:
    """fds 0 to 2 as their duplicates `saved` say (None: that fd was closed; left as it is), if a run changed them."""
    for fd, copy in zip(STD_FDS, saved):
        if copy is not None and not same_file(fd, copy):
            try:
                os.dup2(copy, fd)
            except OSError:  # the duplicate itself is gone (a run closed every fd): nothing to put back
                pass
