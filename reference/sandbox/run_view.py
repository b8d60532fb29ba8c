"""What one run of a candidate's loop sees on disk and what memory it may hold, set before any of its code runs
(reference/sandbox/fresh_main.py), on top of the zygote's namespaces (isolation.py, pid_namespace.py).

Two rules, each in one sentence:
- A run sees the code it may import and nothing the grader judges by: in a mount namespace of its own, the
  scenario files (the catalogue, the folder of every scenario the grade runs: a hiring team's held-out set) and
  the kit's repository but for its importable `reference` package are empty read-only folders; the Python
  prefixes, their site dirs and the `reference` package stay importable. (A loop that imports the kit or an SDK
  must not notice.) Linux, as root.
- A run may hold memory only where a limit counts it: its address space (RLIMIT_AS, process.py) and its temp
  files. Its temp dirs (/tmp, /var/tmp, /dev/shm) are its own, empty at the start, each a tmpfs of the
  memory limit (and a little room, so that one file reaching the limit is what stops), gone with the run, so
  nothing one run leaves there reaches the next; no file may grow past the memory limit (RLIMIT_FSIZE; the
  run is then ended and reported over its memory limit); and the system calls
  that make memory neither limit counts (memfd_create, memfd_secret, SysV shmget) fail as on a kernel without
  them (ENOSYS). (A loop that writes a temp file, or a library that falls back from memfd to a file, must not
  notice.) The refusals and the file size limit hold on Linux for any user; the private temp dirs need root.
"""
from __future__ import annotations

import os
import platform
import resource
import signal
import struct
import sys
from typing import Sequence

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
TEMP_ROOM_MB = 16  # a temp dir holds the memory limit and this: one file reaching the limit is stopped as such
KERNEL = ("/proc", "/sys", "/dev")  # never hidden: a folder that holds one of these is not hidden either


EXIT_REFUSED = 75  # how a run ends that was not started because its view could not be made


class ViewRefused(Exception):
    """The run's view could not be made as promised: the run must not start (the grader says why)."""


def _libc():
    import ctypes  # Linux only, and only in a candidate's process

    return ctypes.CDLL(None, use_errno=True)


def _mount(libc, source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    if libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(), flags,
                  data and data.encode()) != 0:
        import ctypes

        raise ViewRefused(f"mount on {target}: {os.strerror(ctypes.get_errno())}")


def kit_package() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the `reference` folder


def hidden_by_default() -> list[str]:
    """The scenario catalogue, and the repository the kit lies in (when it is not itself a folder Python imports
    from, as site-packages is): its tests, candidates, docs, exercises and solutions are not the loop's."""
    package = kit_package()
    found = [os.path.join(package, "sim", "scenarios")]
    root = os.path.dirname(package)
    if os.path.realpath(root) not in _code_folders():
        found.append(root)
    return found


def _code_folders() -> set[str]:
    """Every folder this interpreter imports from: its prefixes, site dirs, sys.path, the kit's package; not the
    working directory, which `python -m` puts first on sys.path only because the grader was started there."""
    import site

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, kit_package(),
             *getattr(site, "getsitepackages", lambda: [])(), site.getusersitepackages()}
    cwd = os.path.realpath(os.getcwd())
    paths |= {p for p in sys.path if p and os.path.realpath(p) != cwd}
    return {os.path.realpath(p) for p in paths if os.path.isdir(p)}


def _under(path: str, folder: str) -> bool:
    return path != folder and path.startswith(folder.rstrip("/") + "/")


def enter(memory_mb: int, hidden: Sequence[str], temp: Sequence[str]) -> str:
    """Give this process a mount namespace of its own in which `temp` are fresh tmpfs of `memory_mb` each and
    `hidden` are empty and read-only, the code folders under any of them bound back read-only; what was done,
    in words. Raises ViewRefused if it could not be done (as root, where the zygote's namespaces were granted)."""
    libc = _libc()
    if libc.unshare(CLONE_NEWNS) != 0:
        raise ViewRefused("unshare(CLONE_NEWNS) refused")
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    cwd = os.getcwd()
    covers = {os.path.realpath(p): "temp" for p in temp if os.path.isdir(p)}
    for path in hidden:
        real = os.path.realpath(path)
        if os.path.isdir(real) and real != "/" and not any(k == real or _under(k, real) for k in KERNEL):
            covers.setdefault(real, "hidden")
    code = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in _code_folders()
            if any(_under(p, c) for c in covers) and p not in covers}
    try:
        for target in sorted(covers, key=len):  # the outer first: what is under it is then bound back or covered
            kind = covers[target]
            exists = os.path.isdir(target)  # not if it lay under a folder covered before it: hidden already
            options = f"size={memory_mb + TEMP_ROOM_MB}m,mode=1777" if kind == "temp" else "size=1m,mode=755"
            if exists:
                _mount(libc, "tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options)
            for path, fd in sorted(code.items()):
                if _under(path, target) and not any(_under(path, c) and _under(c, target) for c in covers):
                    os.makedirs(path, exist_ok=True)
                    _mount(libc, f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
                    _mount(libc, None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_REC)
            if kind == "hidden" and exists:
                _mount(libc, None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
    finally:
        for fd in code.values():
            os.close(fd)
    _enter_again(cwd, [c for c, kind in covers.items() if kind == "temp"])
    temps = ", ".join(t for t, k in covers.items() if k == "temp")
    hidden_count = sum(k == "hidden" for k in covers.values())
    return (f"own empty temp dirs ({temps}: a tmpfs of {memory_mb + TEMP_ROOM_MB} MB each), {hidden_count} folders of "
            f"scenario files and the repository hidden ({len(code)} code folders under them bound back read-only)")


def _enter_again(cwd: str, temp: list[str]) -> None:
    """The same working directory, seen through the new mounts (an empty one of its own in a temp dir)."""
    try:
        if any(cwd == t or _under(cwd, t) for t in temp):
            os.makedirs(cwd, exist_ok=True)
        os.chdir(cwd)
    except OSError:
        os.chdir("/")


# ------------------------------------------------------------------ memory no limit would count

SECCOMP_DATA_NR, SECCOMP_DATA_ARCH = 0, 4
LD_ABS, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06
RET_ALLOW, RET_ENOSYS = 0x7FFF0000, 0x00050000 | 38
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
X32_BIT = 0x40000000
# per machine: the audit architecture, then memfd_create, memfd_secret, shmget (the kernel's syscall tables)
REFUSED_CALLS = {"x86_64": (0xC000003E, (319, 447, 29)), "aarch64": (0xC00000B7, (279, 447, 194))}


def refuse_uncounted_memory() -> str:
    """memfd_create, memfd_secret and shmget fail with ENOSYS in this process and all it starts (a seccomp
    filter: any user may install one); what was done, or why not."""
    machine = platform.machine()
    if not sys.platform.startswith("linux") or machine not in REFUSED_CALLS:
        return f"memfd_create not refused (no filter for {sys.platform} {machine})"
    arch, calls = REFUSED_CALLS[machine]
    program = [(LD_ABS, 0, 0, SECCOMP_DATA_ARCH), (JEQ, 1, 0, arch), (RET, 0, 0, RET_ENOSYS),
               (LD_ABS, 0, 0, SECCOMP_DATA_NR)]
    if machine == "x86_64":  # the x32 numbers are the same calls with this bit set: refused whole
        program.append((JGE, len(calls) + 1, 0, X32_BIT))
    program += [(JEQ, len(calls) - i, 0, nr) for i, nr in enumerate(calls)]
    program += [(RET, 0, 0, RET_ALLOW), (RET, 0, 0, RET_ENOSYS)]
    import ctypes

    filters = ctypes.create_string_buffer(b"".join(struct.pack("<HBBI", *op) for op in program))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = _libc()
    fprog = Program(len(program), ctypes.addressof(filters))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return f"memfd_create not refused (seccomp: {os.strerror(ctypes.get_errno())})"
    return "memfd_create, memfd_secret and shmget refused"


def limit_files(memory_mb: int) -> None:
    """No file bigger than the memory limit (a memfd or a tmpfs file is memory); writing past it ends the run
    (SIGXFSZ, which Python ignores by default: restored, so the grader reads the end as the memory limit)."""
    size = memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    except (ValueError, OSError, AttributeError):
        pass
