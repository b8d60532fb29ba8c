"""The bench's side of the fork server (forkserver.py): a pool of workers, one per framework venv at a time.

A worker imports its framework once and forks a child per run, so a run no longer pays the framework's
imports. Each run still gets its own loopback server (run.py) and its own process; a run that hangs is
ended by the worker (its child is killed at the timeout and the run says *wall-time limit*), and a
worker that dies or stops answering is killed and replaced by the next run that needs one, the run it
was on recorded with what the worker said. Where os.fork does not exist, run.py starts a fresh process
per run instead.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

FORKSERVER = Path(__file__).with_name("forkserver.py")
READY_WITHIN = 600.0  # seconds a worker may take to import its framework on a loaded machine
GRACE = 30.0  # beyond a run's own timeout, before the worker itself is taken for hung


def available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "wait4")


class WorkerDied(RuntimeError):
    pass


@dataclass
class Worker:
    python: Path
    driver: Path
    env: dict[str, str]
    imports_cpu: float = 0.0  # the worker's own CPU for its imports, as it reported it
    proc: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> "Worker":
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([str(self.python), "-I", str(FORKSERVER), str(self.driver)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, env=self.env, text=True,
                                     start_new_session=True)
        self.imports_cpu = float(self._answer(READY_WITHIN).get("cpu", 0.0))
        return self

    def run(self, spec: dict, timeout: float) -> dict:
        """What the forked run said (forkserver.py's answer). Raises WorkerDied if the worker did not answer."""
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"spec": spec, "timeout": timeout}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.kill()
            raise WorkerDied(f"worker gone ({self.why()})") from None
        return self._answer(timeout + GRACE)

    def _answer(self, within: float) -> dict:
        """The worker's next line; a worker that exits, or says nothing for `within` seconds, is killed.
        Polled in slices: a run the worker forked may outlive it and hold its stdout open."""
        assert self.proc is not None and self.proc.stdout is not None
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                line = self.proc.stdout.readline()
                if line:
                    return json.loads(line)
                break
            if self.proc.poll() is not None:
                break
        said = f"gone ({self.why()})" if self.proc.poll() is not None else f"silent for {within:g} s"
        self.kill()
        raise WorkerDied(f"worker {said}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def why(self) -> str:
        self.log.seek(0, os.SEEK_END)
        self.log.seek(max(0, self.log.tell() - 300))
        code = self.proc.poll() if self.proc else None
        return f"exit {code}: " + self.log.read().decode("utf-8", "replace").strip()[-300:]

    def kill(self) -> None:
        if self.proc is not None:
            try:  # the worker's session: the worker, any run it forked, anything a run started
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        self.kill()  # whatever is left in its session
        self.log.close()


def installed_kit(python: Path) -> str:
    """The digest of the kit's copy in a framework's venv (frameworks.ensure_kit's stamp): a worker that
    imported an older copy of the guard is never handed a run after the copy was replaced."""
    stamp = python.parent.parent / "loopkit-kit.sha256"
    return stamp.read_text() if stamp.exists() else ""


class Workers:
    """Idle workers by (python, driver); a run takes one (or starts one) and gives it back when done."""

    def __init__(self, env: dict[str, str]):
        self.env, self.idle, self.lock, self.started = env, {}, threading.Lock(), []

    def run(self, python: Path, driver: Path, spec: dict, timeout: float) -> dict:
        key = (str(python), str(driver), installed_kit(python))
        with self.lock:
            pool = self.idle.setdefault(key, [])
            worker = pool.pop() if pool else None
        if worker is None:
            worker = Worker(python, driver, self.env)
            with self.lock:
                self.started.append(worker)
            worker.start()
        answer = worker.run(spec, timeout)  # WorkerDied: this worker is not given back
        with self.lock:
            self.idle[key].append(worker)
        return answer

    def close(self) -> None:
        with self.lock:
            started, self.started, self.idle = self.started, [], {}
        for worker in started:
            worker.close()

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
