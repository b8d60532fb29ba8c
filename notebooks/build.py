"""Build the kit's notebooks from their readable sources, and run them so the outputs are stored.

    python notebooks/build.py            # every notebooks/src/NN_name.py -> notebooks/NN_name.ipynb
    python notebooks/build.py 01         # only the notebook(s) whose name starts with 01
    python notebooks/build.py loop_lab   # the extra notebooks (not lessons: reference/lessons.py EXTRA_NOTEBOOKS)
    python notebooks/build.py --check    # fail if a stored notebook no longer matches its source
    python notebooks/build.py --no-execute 01   # build without running (outputs left empty)

A source is a Python file in jupytext's "percent" format: `# %%` starts a code cell, `# %% [markdown]`
a markdown cell of comment lines (`# text`). The YAML header between `# ---` lines at the top holds
notes for whoever edits the source (as YAML comments) and is not part of the notebook. The lessons
and their sources are listed in reference/lessons.py, and so are the notebooks that are not numbered
lessons (EXTRA_NOTEBOOKS: the mock interview, the Loop Lab). Two cells come before the source's in every
notebook, made by notebooks/badges.py from the repository URL in pyproject.toml: the Colab and Binder
badges, and the set-up cell that, on Colab only, clones and installs the kit.

The notebook is executed in place with nbclient (kernel `python3`, working directory notebooks/),
offline, with LOOPKIT_PROVIDER forced to "scripted", so the stored outputs are the ones
`pytest --nbval notebooks/` gets again on a re-run. Volatile metadata (execution timing, the
kernel's Python version) is stripped so that a rebuild with unchanged outputs is an empty diff.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from badges import badge_cell, repository_url, setup_cell  # notebooks/badges.py
from kit import ROOT  # notebooks/kit.py: puts the repository root on sys.path
from reference.core.lazy import load_jsonschema
from reference.lessons import EXTRA_NOTEBOOKS, LESSONS

load_jsonschema()  # before nbformat imports it: without the IRI grammar its format extras build (seconds of CPU)

import jupytext  # noqa: E402  (after load_jsonschema)
import nbformat  # noqa: E402

HERE = Path(__file__).resolve().parent
# the header (`# ---` ... `# ---`) is for people editing the source: not a cell of the notebook
PERCENT = {"extension": ".py", "format_name": "percent", "root_level_metadata_as_raw_cell": False}
KERNEL = "python3"
KERNELSPEC = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
TIMEOUT_SECONDS = 120  # per cell; every lesson cell runs in well under a second


def notebook_from_source(path: Path) -> nbformat.NotebookNode:
    """The source's cells, after two made from the repository URL: the badges and the Colab set-up."""
    nb = jupytext.read(path, fmt=PERCENT)
    url = repository_url()
    nb.cells[:0] = [nbformat.v4.new_markdown_cell(badge_cell(f"notebooks/{path.stem}.ipynb", url)),
                    nbformat.v4.new_code_cell(setup_cell(url))]
    for index, cell in enumerate(nb.cells):
        cell.metadata = {}
        cell.id = f"{cell.cell_type[:2]}{index:03d}"  # stable ids: a rebuild must not change every cell
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    return nb


def execute(nb: nbformat.NotebookNode) -> None:
    from nbclient import NotebookClient

    # The kernel inherits this process's environment: pin what makes the outputs reproducible.
    os.environ["LOOPKIT_PROVIDER"] = "scripted"  # never call a real model from the build
    os.environ["PYTHONHASHSEED"] = "0"
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=TIMEOUT_SECONDS, record_timing=False,
                            allow_errors=False, resources={"metadata": {"path": str(HERE)}})
    client.execute()


def coalesce_streams(outputs: list) -> list:
    """Merge consecutive stream outputs of the same name: how a kernel chunks stdout is timing."""
    merged: list = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def scrub(nb: nbformat.NotebookNode) -> None:
    """Drop what changes from run to run without changing what the notebook shows."""
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)


def stale_cells(nb_path: Path, fresh: nbformat.NotebookNode) -> list[str]:
    """Why the stored notebook does not match its source (empty when it does)."""
    if not nb_path.exists():
        return [f"{nb_path.name} does not exist"]
    stored = nbformat.read(nb_path, as_version=4)
    problems = []
    if len(stored.cells) != len(fresh.cells):
        problems.append(f"{len(stored.cells)} cells stored, {len(fresh.cells)} in the source")
    for i, (a, b) in enumerate(zip(stored.cells, fresh.cells)):
        if (a.cell_type, a.source) != (b.cell_type, b.source):
            problems.append(f"cell {i} differs ({b.cell_type}: {b.source.splitlines()[0][:60]!r})")
        elif a.cell_type == "code" and a.execution_count is None:
            problems.append(f"cell {i} was never executed")
    return problems


def build(path: Path, run: bool = True) -> Path:
    nb = notebook_from_source(path)
    target = HERE / f"{path.stem}.ipynb"
    started = time.perf_counter()
    if run:
        execute(nb)
    scrub(nb)
    nbformat.validate(nb)
    nbformat.write(nb, target)
    took = f" and ran in {time.perf_counter() - started:.1f} s" if run else " (not executed)"
    print(f"built {target.relative_to(HERE.parent)} ({len(nb.cells)} cells){took}")
    return target


def select(prefixes: list[str]) -> list[Path]:
    sources = [ROOT / notebook.source for notebook in (*LESSONS, *EXTRA_NOTEBOOKS)]
    if not prefixes:
        return sources
    chosen = [p for p in sources if any(p.stem.startswith(x) for x in prefixes)]
    if not chosen:
        names = ", ".join(p.stem for p in sources) or "(none)"
        raise SystemExit(f"build.py: no source matches {', '.join(prefixes)}; sources: {names}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="name prefixes such as 01 (default: all)")
    parser.add_argument("--no-execute", action="store_true", help="build the cells without running them")
    parser.add_argument("--check", action="store_true",
                        help="only check that each stored notebook matches its source and was executed")
    args = parser.parse_args(argv)
    sources = select(args.notebooks)
    if args.check:
        failed = 0
        for path in sources:
            problems = stale_cells(HERE / f"{path.stem}.ipynb", notebook_from_source(path))
            failed += bool(problems)
            print(f"{'STALE' if problems else 'ok   '} {path.stem}" + "".join(f"\n      {p}" for p in problems))
        if failed:
            print(f"\nrebuild with: python notebooks/build.py {' '.join(p.stem[:2] for p in sources)}")
        return 1 if failed else 0
    for path in sources:
        build(path, run=not args.no_execute)
    return 0


if __name__ == "__main__":
    sys.exit(main())
