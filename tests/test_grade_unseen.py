"""Scenarios a candidate cannot recognise, and memory a run cannot hide from its limit.

A run of a candidate's file sees no scenario name (every run is `task`) and no call id derived from one; as
root, in its own mount namespace, it finds no scenario file on disk (the catalogue, the folder of the run's own
scenario, the kit's repository but for its `reference` package) and has temp dirs of its own. A hiring team
can grade on scenario files the candidate never saw (`--scenarios DIR_OR_FILE`). A run may hold memory only
where a limit counts it: memfd_create and shmget fail, a file past the memory limit ends the run as over it,
the temp dirs hold no more than the limit each (reference/sandbox/run_view.py, docs/grading.md, Sandbox).
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reference import Episode, find
from reference.core.errors import ScenarioError
from reference.grade.suite import SETS, scenario_set
from reference.sandbox.fresh import start_message
from reference.sandbox.process import Limits
from reference.sandbox.remote import NEUTRAL_NAME, public_view
from reference.sandbox.run_view import TEMP_ROOM_MB

ROOT = Path(__file__).resolve().parent.parent
HELD_OUT = ROOT / "tests" / "scenarios" / "held_out"
CATALOGUE = ROOT / "reference" / "sim" / "scenarios"
BLIND = ROOT / "tests" / "candidates" / "hostile" / "blind2"


def test_what_a_run_is_told_names_no_scenario():
    for name in SETS["interview"]:
        episode = Episode.from_scenario(find(name), label=NEUTRAL_NAME)
        told = json.dumps(start_message("loop.py", episode, 8, Limits(5.0, 1024)))
        assert public_view(episode.scenario)["name"] == NEUTRAL_NAME
        assert name not in told, (name, told[:300])


def test_the_ids_of_the_models_calls_do_not_depend_on_the_scenario():
    first_ids = set()
    for name in ("happy-path", "repeat-exact", "tool-down"):
        episode = Episode.from_scenario(find(name), label=NEUTRAL_NAME)
        turn = episode.model.complete(episode.initial_messages(), episode.tools.specs)
        first_ids.add(turn.tool_calls[0].id)
    assert len(first_ids) == 1, first_ids


def test_a_folder_or_a_file_of_scenarios_is_a_set(tmp_path):
    assert [s.name for s in scenario_set(str(HELD_OUT))] == ["happy-path", "repeat-exact"]
    assert [s.name for s in scenario_set(str(HELD_OUT / "repeat-exact.yaml"))] == ["repeat-exact"]
    assert [s.name for s in scenario_set("quick")] == list(SETS["quick"])
    with pytest.raises(KeyError, match="no scenario files"):
        scenario_set(str(tmp_path))
    shutil.copy(HELD_OUT / "repeat-exact.yaml", tmp_path / "a.yaml")
    shutil.copy(HELD_OUT / "repeat-exact.yaml", tmp_path / "b.yml")
    with pytest.raises(KeyError, match="same name: repeat-exact"):
        scenario_set(str(tmp_path))
    (tmp_path / "b.yml").write_text("name: broken\nuser: 3\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="b.yml"):
        scenario_set(str(tmp_path))


def test_the_command_says_why_a_scenario_file_does_not_read(tmp_path, capsys):
    from reference.cli.main import main

    (tmp_path / "broken.yaml").write_text("name: broken\n", encoding="utf-8")
    code = main(["grade", str(ROOT / "docs/candidates/kit_api.py"), "--scenarios", str(tmp_path / "broken.yaml")])
    out, err = capsys.readouterr()
    assert code == 2 and "broken.yaml" in err and not out, err[-500:]


def grade(candidate: Path, scenarios: str, cwd: Path) -> dict:
    proc = subprocess.run([sys.executable, "-m", "reference.cli", "grade", str(candidate), "--scenarios", scenarios,
                           "--time-limit", "5", "--format", "json"], cwd=cwd, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("candidate", ["docs/candidates/kit_api.py", "tests/candidates/guarded_full.py"])
def test_held_out_scenarios_are_judged_as_the_catalogues_in_their_place(tmp_path, candidate):
    """A held-out file that takes a catalogue scenario's name feeds the same rubric rows: the same totals."""
    copies = tmp_path / "catalogue_copies"
    copies.mkdir()
    for name in ("happy-path", "repeat-exact"):
        shutil.copy(CATALOGUE / f"{name}.yaml", copies)
    held_out, public = grade(ROOT / candidate, str(HELD_OUT), tmp_path), grade(ROOT / candidate, str(copies), tmp_path)
    assert [r["scenario"] for r in held_out["runs"]] == [r["scenario"] for r in public["runs"]]
    assert held_out["total"] == public["total"], (held_out["reasoning"], public["reasoning"])


PROBE = """
import ctypes, os
from reference import StopReason

def loop(episode, max_steps):
    import reference
    root = os.path.dirname(os.path.dirname(reference.__file__))
    seen = {{"root": sorted(os.listdir(root)), "catalogue": os.listdir(os.path.join(root, "reference/sim/scenarios")),
            "held_out": os.path.isdir({held_out!r}), "tmp": os.listdir("/tmp"), "shm": os.listdir("/dev/shm"),
            "grader_tmp": os.path.exists({marker!r}), "name": episode.scenario.name}}
    try:
        os.memfd_create("x")
        seen["memfd"] = "made"
    except OSError as exc:
        seen["memfd"] = exc.errno
    seen["shmget"] = ctypes.CDLL(None, use_errno=True).shmget(0, 1 << 20, 0o1600), ctypes.get_errno()
    with open("/tmp/left_by_a_run", "w") as f:
        f.write("x")
    import reference.cli.main  # a kit module not imported before: the library stays importable
    print(repr(seen))
    chunk, held = b"x" * (8 << 20), 0
    try:
        for i in range(100):
            with open(f"/dev/shm/part{{i}}", "wb") as f:
                f.write(chunk)
            held += 8
    except OSError as exc:
        print("SMALL FILES", held, exc.errno)
    with open("/tmp/big", "wb") as f:
        for _ in range(100):
            f.write(chunk)
    return episode.finish(StopReason.MAX_STEPS, episode.initial_messages())
"""


def code_in_tmp() -> set[str]:
    """The entries of /tmp a run may still see: the top folders of the code it runs (this Python's prefixes and
    site dirs, the kit's checkout) where they lie in /tmp, bound back read-only; never scratch space."""
    import site

    import reference

    tmp = os.path.realpath("/tmp")
    kit = os.path.dirname(os.path.dirname(os.path.abspath(reference.__file__)))
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, kit, *site.getsitepackages(), *(p for p in sys.path if p)}
    return {os.path.realpath(p)[len(tmp) + 1:].split("/")[0] for p in paths
            if os.path.realpath(p).startswith(tmp + "/")}


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="namespaces and seccomp are Linux's")
def test_as_root_a_run_finds_no_scenario_file_and_holds_no_memory_its_limit_misses(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("a mount namespace per run needs root here; as an ordinary user the scenario files stay readable "
                    "(docs/grading.md, Known limits)")
    from reference.sandbox.grading import run_candidate

    marker = tmp_path / "the_graders_own_temp_file"
    marker.write_text("x")
    path = tmp_path / "probe.py"
    path.write_text(PROBE.format(held_out=str(HELD_OUT), marker=str(marker)), encoding="utf-8")
    for _ in range(2):  # the second run finds nothing the first left
        attempt = run_candidate(str(path), find(str(HELD_OUT / "happy-path.yaml")), time_limit=30, memory_mb=64,
                                echo=False)
        seen = eval(attempt.output.splitlines()[0])  # noqa: S307 (the test's own probe, printed with repr)
        assert seen["root"] == ["reference"] and seen["catalogue"] == [] and not seen["held_out"], seen
        assert set(seen["tmp"]) <= code_in_tmp(), seen  # a checkout or venv made in /tmp (as CI makes) is bound back
        assert seen["shm"] == [] and not seen["grader_tmp"] and seen["name"] == "task", seen
        assert seen["memfd"] == 38 and seen["shmget"] == (-1, 38), seen  # ENOSYS
        assert f"SMALL FILES {64 + TEMP_ROOM_MB} 28" in attempt.output, attempt.output  # /dev/shm full: ENOSPC
        assert "exceeded the memory limit (64 MB): a file it wrote grew past it" in attempt.story(), attempt.story()
    assert not Path("/tmp/left_by_a_run").exists()


def recognition_off(source: str, function: str, value: str) -> str:
    """The candidate's source with `function` made to find nothing: what it does where it recognises nothing."""
    head = f"def {function}("
    at = source.index(head)
    body = source.index(":\n", at) + 2
    indent = " " * 4
    return source[:body] + f"{indent}return {value}\n" + source[body:]


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the mount namespace is Linux's")
@pytest.mark.parametrize("name, function, value", [("h09_scenario_name_overfit", "_name", '""'),
                                                   ("h10_reads_catalogue_from_disk", "_find_yaml", "None")])
def test_a_loop_that_recognises_scenarios_scores_as_it_does_where_it_recognises_none(tmp_path, name, function, value):
    """The tester's own criterion for h09 and h10 (EXPECTATIONS.md): the same file, its lookup made to find
    nothing, scores the same; both score what their general behaviour earns."""
    if os.geteuid() != 0:
        pytest.skip("the catalogue is hidden only in a run's own mount namespace (root); see docs/grading.md")
    blind = tmp_path / "control.py"
    blind.write_text(recognition_off((BLIND / f"{name}.py").read_text(encoding="utf-8"), function, value))
    graded, control = grade(BLIND / f"{name}.py", "quick", tmp_path), grade(blind, "quick", tmp_path)
    assert graded["total"] == control["total"] < 80, (graded["reasoning"], control["reasoning"])
    assert [r["story"] for r in graded["runs"]] == [r["story"] for r in control["runs"]]


def in_a_fresh_process(body: str, folder: Path) -> int:
    """`body` (Python, its `main(folder)` returning the exit code) in a fresh interpreter; how it ended (its exit
    code, or minus the signal that ended it). Not a fork of this process: a pytest worker has threads."""
    program = textwrap.dedent(body) + "\nimport sys\nfrom pathlib import Path\nsys.exit(main(Path(sys.argv[1])))\n"
    return subprocess.run([sys.executable, "-c", program, str(folder)], cwd=ROOT, timeout=300).returncode


REFUSED = """
    import ctypes
    import os

    from reference.sandbox import run_view

    def main(folder):
        if run_view.refuse_uncounted_memory() != "memfd_create, memfd_secret and shmget refused":
            return 2
        try:
            os.memfd_create("x")
            return 3
        except OSError as exc:
            if exc.errno != 38:
                return 4
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.shmget(0, 1 << 20, 0o1600) != -1 or ctypes.get_errno() != 38:
            return 5
        (folder / "a temp file still works").write_bytes(b"x" * 4096)
        return 0
"""

TOO_BIG = """
    from reference.sandbox import run_view

    def main(folder):
        run_view.limit_files(1)
        with open(folder / "big", "wb") as f:
            f.write(b"x" * (1 << 20))  # exactly the limit: allowed
            f.flush()
            f.write(b"x")
            f.flush()
        return 0
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"),
                    reason="the seccomp filter knows the system call numbers of Linux on x86_64 and aarch64")
def test_for_any_user_memfd_and_shmget_are_refused_and_a_file_past_the_limit_ends_the_process(tmp_path):
    import signal

    assert in_a_fresh_process(REFUSED, tmp_path) == 0
    assert (tmp_path / "a temp file still works").stat().st_size == 4096
    assert in_a_fresh_process(TOO_BIG, tmp_path) == -signal.SIGXFSZ
