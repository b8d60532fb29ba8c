"""Build the kit's notebooks from their readable sources, and run them so the outputs are stored.

    python notebooks/build.py            # every notebooks/src/NN_name.py -> notebooks/NN_name.ipynb
    python notebooks/build.py 01         # only the notebook(s) whose name starts with 01
    python notebooks/build.py --check    # fail if a stored notebook no longer matches its source
    python notebooks/build.py --no-execute 01   # build without running (outputs left empty)

A source is a Python file in the "percent" format: a line `# %%` starts a code cell, a line
`# %% [markdown]` starts a markdown cell whose lines are comments (`# text`). Anything before the
first marker is a header for people editing the file and is not part of the notebook.

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

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "src"
KERNEL = "python3"
KERNELSPEC = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
TIMEOUT_SECONDS = 120  # per cell; every lesson cell runs in well under a second


class SourceError(ValueError):
    """A notebook source that cannot be turned into cells, with the file and the line."""


def parse_percent(text: str, source: str = "<source>") -> list[tuple[str, str]]:
    """(kind, text) for each cell of a percent-format source; kind is "code" or "markdown"."""
    cells: list[tuple[str, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        marker = line.rstrip()
        if marker == "# %%" or marker.startswith("# %% "):
            kind = "markdown" if marker.removeprefix("# %%").strip().startswith("[markdown]") else "code"
            cells.append((kind, []))
        elif not cells:
            continue  # the header: notes for whoever edits the source
        elif cells[-1][0] == "markdown":
            if marker == "#":
                cells[-1][1].append("")
            elif line.startswith("# "):
                cells[-1][1].append(line[2:])
            elif marker == "":
                cells[-1][1].append("")
            else:
                raise SourceError(f"{source}:{number}: a markdown cell holds only comment lines ('# text'); "
                                  f"got {line[:60]!r}. Start a code cell with '# %%' first.")
        else:
            cells[-1][1].append(line)
    out = []
    for kind, lines in cells:
        body = "\n".join(lines).strip("\n")
        if body.strip():
            out.append((kind, body))
    if not out:
        raise SourceError(f"{source}: no cells found; start cells with '# %%' or '# %% [markdown]'")
    return out


def notebook_from_source(path: Path) -> nbformat.NotebookNode:
    nb = new_notebook()
    for index, (kind, body) in enumerate(parse_percent(path.read_text(encoding="utf-8"), str(path))):
        cell = new_markdown_cell(body) if kind == "markdown" else new_code_cell(body)
        cell.id = f"{kind[:2]}{index:03d}"  # stable ids: a rebuild must not change every cell
        nb.cells.append(cell)
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
    sources = sorted(SOURCES.glob("[0-9][0-9]_*.py"))
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
    try:
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
    except SourceError as exc:
        print(f"build.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
