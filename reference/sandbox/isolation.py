"""Stronger isolation where the machine allows it: the candidate's processes in their own mount and network
namespaces, the filesystem read-only but for the temp dirs, no network (Linux, as root).

Called by the zygote (and the fresh interpreter that replaces it) before any candidate code runs and before
it gives up its capabilities (reference/sandbox/fresh_main.py). Without root (or where unshare(2) is refused:
a container without CAP_SYS_ADMIN) nothing changes and `isolate` says why; `LOOPKIT_GRADE_ISOLATION=off`
turns it off. What it adds to the rest of the sandbox: a candidate cannot change a file outside the temp
dirs (the kit, the catalogue, the repository, the report being written) nor reach the network; and code that
later interpreters run stays read-only even where it lies inside a temp dir (a virtual environment made in
/tmp, as CI makes one).
"""
from __future__ import annotations

import os
import tempfile

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
KEPT = ("/proc", "/sys", "/dev")  # kernel filesystems: left as they are
ENV = "LOOPKIT_GRADE_ISOLATION"


def writable() -> tuple[str, ...]:
    """The folders a candidate may still write to: the temp dirs."""
    return tuple(dict.fromkeys(os.path.realpath(p) for p in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm")))


def isolate() -> str:
    """Enter new mount and network namespaces and make every mount read-only but the temp dirs; what was done,
    or why not, in one line."""
    if os.environ.get(ENV) == "off":
        return f"not isolated: {ENV}=off"
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "not isolated: namespaces need root here (the grader runs as an ordinary user)"
    try:
        import ctypes  # Linux only, and only in the candidate's zygote

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNS | CLONE_NEWNET) != 0:
            return f"not isolated: unshare refused ({os.strerror(ctypes.get_errno())})"
        libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None)  # nothing done here reaches the grader's mounts
        keep = tuple(d for d in writable() if os.path.isdir(d))
        for folder in keep:  # each its own mount, so that making its parent read-only leaves it writable
            libc.mount(folder.encode(), folder.encode(), None, MS_BIND | MS_REC, None)
        for point in sorted(_mount_points(), key=len):
            if any(point == k or point.startswith(k + "/") for k in KEPT + keep):
                continue
            libc.mount(None, point.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        for code in sorted(code_under(keep), key=len):  # a venv or checkout in /tmp runs after this run, too
            libc.mount(code.encode(), code.encode(), None, MS_BIND | MS_REC, None)
            libc.mount(None, code.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        return f"isolated: own mount and network namespaces, read-only but {', '.join(keep)}"
    except (ImportError, OSError, AttributeError) as exc:
        return f"not isolated: {exc}"


def code_under(keep: tuple[str, ...]) -> list[str]:
    """What later interpreters run (this Python's prefixes and site dirs, the kit's own folder) where it lies
    inside a writable temp dir: a virtual environment or a checkout in /tmp is code, not scratch space, and a
    run that plants a `.pth` there would run in every interpreter after it."""
    import site
    import sys

    kit = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the folder that holds `reference`
    sites = list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]
    found = []
    for path in {sys.prefix, sys.base_prefix, sys.exec_prefix, kit, *sites}:
        real = os.path.realpath(path)
        if os.path.isdir(real) and any(real != k and real.startswith(k + "/") for k in keep):
            found.append(real)
    return [p for p in found if not any(p != q and p.startswith(q + "/") for q in found)]  # outermost only


def _mount_points() -> list[str]:
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        return [_unescape(line.split()[4]) for line in f if len(line.split()) > 4]


def _unescape(path: str) -> str:
    """mountinfo writes a space, a tab, a newline and a backslash in octal (\\040)."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        path = path.replace(code, char)
    return path
