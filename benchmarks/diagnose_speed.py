"""How fast `loopkit diagnose` judges a fleet of logs, and how much memory it holds.

    python benchmarks/diagnose_speed.py [conversations] [files] [jobs] [--keep DIR]

Writes `conversations` Chat Completions conversations (the sample fleet of reference/diagnosis/samples.py,
each tool result padded to a realistic size, ~10 KB a conversation) as JSON Lines spread over `files`
files, then times `python -m reference.cli diagnose DIR --json --jobs JOBS > /dev/null` in a fresh
process: wall clock, CPU time (user + system of all its processes, from getrusage), and the peak resident
memory of its largest process; the verdicts go to a file in the same folder, and their lines are counted.
The machine's load average is printed with them: on a shared machine, wall time is CPU time divided by
the cores it actually got. Figures and how they were measured: docs/diagnose.md ("Speed"). Not a test:
wall time depends on the machine and its load.
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reference.diagnosis import samples  # noqa: E402  (after the path: run from a clone)
from reference.diagnosis.logs import write  # noqa: E402

PAD = ("Ticket history: customer contacted support about delivery; agent notes follow. " * 90)[:7000]


def padded(turns: list) -> list:
    out = []
    for t in turns:
        if t[0] == "tool" and t[2].startswith("{"):
            body = json.loads(t[2])
            body["history"] = PAD
            t = (t[0], t[1], json.dumps(body), t[3])
        out.append(t)
    return out


def write_fleet(folder: Path, conversations: int, files: int) -> int:
    lines = {name: json.dumps({"messages": write.chat(padded(turns))}) for name, turns in
             [("support_loop", samples.support_loop()), ("support_ok", samples.support_ok()),
              ("coding_loop", samples.coding_loop()), ("coding_ok", samples.coding_ok())]}
    mix = [name for name, _ in samples.fleet(1000, seed=1)]
    handles = [open(folder / f"shard-{k:03d}.jsonl", "w", encoding="utf-8") for k in range(files)]
    size = 0
    for i in range(conversations):
        line = lines[mix[i % len(mix)]] + "\n"
        handles[i % files].write(line)
        size += len(line)
    for h in handles:
        h.close()
    return size


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    conversations = int(args[0]) if args else 100_000
    files = int(args[1]) if len(args) > 1 else 8
    jobs = int(args[2]) if len(args) > 2 else 2
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    folder = Path(keep or tempfile.mkdtemp(prefix="diagnose-speed-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        size = write_fleet(folder, conversations, files)
        out_path = folder / "verdicts.out"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        with open(out_path, "wb") as out:
            done = subprocess.run([sys.executable, "-m", "reference.cli", "diagnose", str(folder), "--json",
                                   "--jobs", str(jobs)], cwd=ROOT, stdout=out, stderr=subprocess.PIPE,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        with open(out_path, "rb") as f:
            lines = sum(1 for _ in f)
        peak = after.ru_maxrss / 1024
        load = os.getloadavg()[0]
        print(f"{conversations:,} conversations, {size / 1e6:,.0f} MB in {files} files, --jobs {jobs}: "
              f"{seconds:.1f} s wall ({conversations / seconds:,.0f} conversations/s), {cpu:.1f} s CPU (user+sys, "
              f"all its processes), {lines:,} verdict lines, exit {done.returncode}, peak RSS of the largest process "
              f"{peak:,.0f} MB, load average {load:.1f} on {os.cpu_count()} cores at the end")
        if done.returncode:
            print(done.stderr.decode()[-2000:])
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
