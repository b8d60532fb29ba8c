"""One worker per framework venv: the framework imported once, each run in a fork of that process.

    python -I forkserver.py DRIVER        # in the framework's venv; run by reference/bench/workers.py

Importing a framework is most of a bench run's CPU (benchmarks/bench_run_cost.py), so this process
imports every module the driver names once, then forks a child per run: the child starts from the
state just after the imports, runs the driver as a fresh process would (its spec on stdin, its JSON
line on stdout) and exits. Nothing a run does reaches the next one (CrewAI's hook registry, caches,
event loops all live and die in the child), and a run that hangs or crashes takes only its child.

Protocol, one JSON line each way: the worker says {"ready": true} once its imports are done; then for
each {"spec": {...}, "timeout": seconds} on stdin it answers {"stdout": the child's last JSON line or
null, "stderr": its last 300 characters, "exit": code or -signal, "timed_out": bool, "cpu": the
child's CPU seconds, "seconds": its wall time}. Standard library only: it runs in any framework's venv.
"""
import ast
import importlib
import io
import json
import os
import resource
import runpy
import signal
import sys
import tempfile
import time
import traceback


def preload(driver: str) -> None:
    """Import every absolute module the driver imports anywhere (the guard's too, for the guarded rows);
    one that fails is left for the run itself to report."""
    with open(driver, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the run will raise it again, in its own words
                pass


def child(driver: str, spec: dict, out: int, err: int) -> None:
    """The run, in the forked child: never returns."""
    os.dup2(out, 1)
    os.dup2(err, 2)
    sys.stdin = io.StringIO(json.dumps(spec))
    code = 0
    try:
        runpy.run_path(driver, run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:  # noqa: BLE001 - reported to the bench as the driver's own crash
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(code)


def tail(fd: int, size: int) -> str:
    os.lseek(fd, max(0, os.fstat(fd).st_size - size), os.SEEK_SET)
    return os.read(fd, size).decode("utf-8", "replace")


def run(driver: str, spec: dict, timeout: float) -> dict:
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        child(driver, spec, out.fileno(), err.fileno())
    began = time.monotonic()
    deadline, timed_out = began + timeout, False
    while True:
        done, status, used = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            timed_out = True
            try:
                os.kill(pid, signal.SIGKILL)  # what it started dies with the worker's session
            except ProcessLookupError:
                pass
            done, status, used = os.wait4(pid, 0)
            break
        time.sleep(0.05)
    with out, err:
        stdout = tail(out.fileno(), 1 << 20)
        lines = [line for line in stdout.splitlines() if line.startswith("{")]
        return {"stdout": lines[-1] if lines else None, "stderr": tail(err.fileno(), 300),
                "exit": os.waitstatus_to_exitcode(status), "timed_out": timed_out,
                "cpu": round(used.ru_utime + used.ru_stime, 3), "seconds": round(time.monotonic() - began, 2)}


def main(driver: str) -> None:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the imports print goes to stderr, never into the protocol
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8", line_buffering=True)
    preload(driver)
    answers.write(json.dumps({"ready": True, "cpu": round(sum(resource.getrusage(resource.RUSAGE_SELF)[:2]), 3)}) + "\n")
    answers.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        asked = json.loads(line)
        answers.write(json.dumps(run(driver, asked["spec"], float(asked["timeout"]))) + "\n")
        answers.flush()


if __name__ == "__main__":
    main(sys.argv[1])
