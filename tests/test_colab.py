"""Colab and Binder: the badges come from the one repository URL, and each notebook's first cell sets
the kit up on Colab (and does nothing anywhere else).

Colab is played here: the stored notebook is copied alone into an empty folder, a stand-in
`google.colab` module is put on the kernel's path, LOOPKIT_REPO_URL points at a `git clone` of this
repository, and LOOPKIT_PIP at a recorder, so that the test checks the install command without
installing. `pytest -m slow tests/test_colab.py` also runs every cell with the real pip into a
throw-away virtual environment (minutes; .ci/run runs it once).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest

from reference.lessons import LESSONS

from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
badges = load_script("notebooks/badges.py")

URL = badges.repository_url()
NAME = badges.github_path(URL).split("/")[-1]
RECORDER = "import json, sys\nwith open(sys.argv[1], 'a') as f:\n    f.write(json.dumps(sys.argv[2:]) + '\\n')\n"


def test_the_repository_url_is_written_in_pyproject_only():
    assert URL == "https://github.com/agent-loop-interview-kit/agent-loop-interview-kit", "confirm it, then update this"
    written = [p for folder in ("reference", "notebooks/src", "docs", "exercises", "solutions", "binder")
               for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in (".py", ".md", ".yaml", "")
               and badges.github_path(URL) in p.read_text(encoding="utf-8", errors="ignore")]
    assert not written, f"the URL belongs in pyproject.toml only (the badges are generated from it): {written}"


def test_the_readme_carries_every_badge_generated_from_the_url():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [line for line in badges.readme_lines([l.notebook for l in LESSONS], URL) if line not in readme]
    assert not missing, "README.md should carry `python notebooks/badges.py`'s lines:\n" + "\n".join(missing)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.exercise)
def test_every_notebook_starts_with_its_badge_and_the_colab_cell(lesson):
    cells = nbformat.read(ROOT / lesson.notebook, as_version=4).cells
    assert cells[0].cell_type == "markdown" and cells[0].source == badges.badge_cell(lesson.notebook, URL)
    assert cells[1].cell_type == "code" and cells[1].source == badges.setup_cell(URL)
    assert cells[1].outputs == [], "off Colab (the stored run, nbval) the set-up cell prints nothing"


def test_the_setup_cell_does_nothing_off_colab(tmp_path):
    code = badges.setup_cell(URL) + "\nimport os; print(ON_COLAB, os.getcwd())"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0 and done.stdout.split() == ["False", str(tmp_path)], done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == [], "nothing cloned, nothing written"


def test_the_install_is_the_kit_alone_and_upgrades_nothing():
    """Colab keeps its own Jupyter, ipywidgets (7 or 8) and matplotlib: no dev extra, no --upgrade."""
    cell = badges.setup_cell(URL)
    assert '[*pip, "install", "--quiet", "-e", str(clone)]' in cell
    for flag in ("[dev]", "--upgrade", " -U", "--force-reinstall", "ipywidgets", "jupyter"):
        assert flag not in cell.split("# The kit")[1].split("\n", 2)[2], flag


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """A clone of this repository, standing in for GitHub."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    path = tmp_path_factory.mktemp("github") / NAME
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(path)], check=True, timeout=120)
    return path


def colab(tmp_path: Path, origin: Path, monkeypatch, pip: str | None = None) -> tuple[Path, Path]:
    """An empty /content, a stand-in google.colab, and the environment the set-up cell honours."""
    standin = tmp_path / "standin" / "google" / "colab"
    standin.mkdir(parents=True)
    (standin / "__init__.py").write_text('"""A stand-in: only its presence matters."""\n', encoding="utf-8")
    content = tmp_path / "content"
    content.mkdir()
    recorded = tmp_path / "pip.jsonl"
    (tmp_path / "recorder.py").write_text(RECORDER, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "standin"))
    monkeypatch.setenv("LOOPKIT_REPO_URL", str(origin))
    monkeypatch.setenv("LOOPKIT_PIP", pip or f"{sys.executable} {tmp_path / 'recorder.py'} {recorded}")
    monkeypatch.delenv("LOOPKIT_CLONE", raising=False)
    return content, recorded


def run_cells(nb_path: Path, folder: Path, cells: list, python: str = sys.executable) -> list[str]:
    """Run these cells in a fresh kernel started in `folder`; the text each printed."""
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                        "language": "python"}})
    path = folder / nb_path.name
    nbformat.write(nb, path)
    # jsonschema (nbformat's) without the IRI grammar its format extras would build, as the kit loads it
    # (reference/core/lazy.py): 3.2 s of CPU to import nbformat and nbclient here, 0.6 s without it
    script = ("import sys; sys.modules['rfc3987_syntax'] = None\n"
              "import nbformat; from nbclient import NotebookClient\n"
              "del sys.modules['rfc3987_syntax']\n"
              "nb = nbformat.read(sys.argv[1], as_version=4)\n"
              "NotebookClient(nb, kernel_name='python3', timeout=600, resources={'metadata': {'path': sys.argv[2]}})"
              ".execute()\nnbformat.write(nb, sys.argv[1])\n")
    done = subprocess.run([python, "-c", script, str(path), str(folder)], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = nbformat.read(path, as_version=4)
    return ["".join(o.get("text", "") for o in c.outputs) for c in ran.cells if c.cell_type == "code"]


PROBE = ("import os, kit, reference\n"
         "print(kit.ROOT); print(os.getcwd()); print(reference.__file__)\n"
         "print(kit.load_exercise('{exercise}').__file__)")


@pytest.fixture(scope="module")
def played(tmp_path_factory, origin) -> tuple[Path, dict[str, str], list]:
    """The notebooks' first cell (the same in each: test_every_notebook_starts_with_its_badge_and_the_colab_cell)
    run twice in one fresh kernel in an empty /content, as when someone re-runs it, then each lesson's own set-up
    cell and a probe of what it imported: (the clone, lesson -> the probe's output, the installs recorded)."""
    tmp_path = tmp_path_factory.mktemp("colab")
    with pytest.MonkeyPatch.context() as monkeypatch:
        content, recorded = colab(tmp_path, origin, monkeypatch)
        first = nbformat.read(ROOT / LESSONS[0].notebook, as_version=4).cells[1].source
        run = [first, first]
        for lesson in LESSONS:
            stored = nbformat.read(ROOT / lesson.notebook, as_version=4)
            run += [next(c.source for c in stored.cells[2:] if c.cell_type == "code" and "from kit import" in c.source),
                    PROBE.format(exercise=lesson.exercise)]
        outputs = run_cells(ROOT / LESSONS[0].notebook, content, [nbformat.v4.new_code_cell(source) for source in run])
    probes = dict(zip((lesson.exercise for lesson in LESSONS), outputs[3::2]))
    installs = [json.loads(line) for line in recorded.read_text(encoding="utf-8").splitlines()]
    return content / NAME, probes, installs


def test_the_first_cell_clones_once_and_installs_the_kit_alone(played):
    """Run twice, as when someone re-runs it: the clone is kept, the install is a no-op."""
    clone, _, installs = played
    assert (clone / "notebooks" / "kit.py").exists(), "the first cell clones the repository into the working folder"
    assert installs == [["install", "--quiet", "-e", str(clone)]] * 2, \
        f"`pip install -e <clone>`: the kit alone, no dev extra, no --upgrade; got {installs}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.exercise)
def test_the_first_cells_set_the_kit_up_as_on_colab(lesson, played):
    """After the first cell, the lesson's own set-up cell imports `kit` and `reference` from the clone, in
    notebooks/ of the clone."""
    clone, probes, _ = played
    root, cwd, reference_file, exercise_file = probes[lesson.exercise].split()
    assert Path(root) == clone and Path(cwd) == clone / "notebooks", probes[lesson.exercise]
    assert reference_file.startswith(str(clone)) and exercise_file.startswith(str(clone / "solutions")), \
        probes[lesson.exercise]


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.exercise)
def test_every_cell_runs_as_on_colab_with_a_real_install(lesson, tmp_path, origin, monkeypatch):
    """Slow (a real pip install into a throw-away environment that sees this one's packages, as Colab's
    preinstalled ones): the whole notebook, as Colab runs it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # this environment's packages stand for Colab's preinstalled ones (--system-site-packages would show the
    # base interpreter's instead, when the tests themselves run in a virtual environment)
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    Path(purelib, "_these_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    content, _ = colab(tmp_path, origin, monkeypatch, pip=f"{python} -m pip")
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    cells = nbformat.read(ROOT / lesson.notebook, as_version=4).cells
    run_cells(ROOT / lesson.notebook, content, cells, python=python)
    assert shutil.which("loopkit", path=str(venv / "bin")), "the install put `loopkit` in the environment"
