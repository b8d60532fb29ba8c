"""Every `reference/...` path and `reference.<module>.<name>` written in code, docs or notebook sources exists.

Modules move; the sentences that name them do not move with them. This reads every text file a learner
or a contributor reads (built notebooks are left out: they are made from notebooks/src/) and checks each
name against the tree: a path is a file or folder (a glob such as `reference/sim/scenarios/*.yaml` must
match something; a placeholder in capitals such as `exNN` or `NAME` stands for any text), a dotted name
is a module followed by attributes that the module has."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ["README.md", "pyproject.toml", ".ci", "binder", "docs", "notebooks/src", "reference", "exercises",
           "solutions", "tests", "benchmarks"]
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".ini", ".json", ".jsonl", ".sh", ""}
# Not preceded by a word, a dot, a dash or a slash: a URL's ".../reference/page" is not the package.
SLASHED = re.compile(r"(?<![\w./-])reference/[\w.*/-]*")
DOTTED = re.compile(r"(?<![\w./-])reference(?:\.[A-Za-z_]\w*)+")


def scanned_files() -> list[Path]:
    files = []
    for name in SCANNED:
        top = ROOT / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*"))
        files += [p for p in candidates if p.is_file() and p.suffix in TEXT_SUFFIXES
                  and "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts]
    return files


def mentions(pattern: re.Pattern, text: str) -> set[str]:
    return {m.group(0).rstrip(".,:;") for m in pattern.finditer(text)}


def path_exists(mention: str) -> bool:
    """A path, a glob, or a path with a placeholder in capitals (`exNN`, `NAME`), relative to the repository."""
    pattern = re.sub(r"[A-Z]{2,}", "*", mention.rstrip("/"))
    if "*" in pattern:
        return any(ROOT.glob(pattern))
    return (ROOT / pattern).exists()


def dotted_exists(mention: str) -> bool:
    """The longest prefix that is a module or package, then attributes of it (the module is imported)."""
    parts = mention.split(".")
    for i in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:i])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            break
    else:
        return False
    if parts[i:] and parts[i] in {"py", "yaml", "md", "json"}:  # a file name written with dots: say it with slashes
        return False
    if not parts[i:] or parts[i - 1] == "__main__":  # nothing to look up, or a module that runs when imported
        return not parts[i:]
    obj = importlib.import_module(".".join(parts[:i]))
    for attribute in parts[i:]:
        if not hasattr(obj, attribute):
            return False
        obj = getattr(obj, attribute)
    return True


def stale(pattern: re.Pattern, exists) -> list[str]:
    found = []
    for path in scanned_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(ROOT)}: {m}" for m in sorted(mentions(pattern, text)) if not exists(m)]
    return found


def test_every_reference_path_exists():
    missing = stale(SLASHED, path_exists)
    assert not missing, "these files name reference/ paths that do not exist:\n" + "\n".join(missing)


def test_every_dotted_reference_name_exists():
    missing = stale(DOTTED, dotted_exists)
    assert not missing, "these files name reference.* modules or attributes that do not exist:\n" + "\n".join(missing)


@pytest.mark.parametrize("text, want", [
    ("see `reference/parts/guards/` and reference/sim/scenarios/*.yaml.", {"reference/parts/guards/",
                                                                           "reference/sim/scenarios/*.yaml"}),
    ("https://developers.example.com/reference/page and docs/reference/x", set()),
    ("(reference/hints/exNN.md), then", {"reference/hints/exNN.md"}),
])
def test_paths_are_found_in_prose(text, want):
    assert mentions(SLASHED, text) == want


def test_the_checks_can_fail():
    # Written in pieces, so that this file does not name a missing path itself.
    gone = "reference" + "/nowhere/"
    assert not path_exists(gone) and not path_exists(gone + "*.yaml") and not path_exists("reference" + "/budget.py")
    assert path_exists("reference/parts/guards/") and path_exists("reference/bench/drivers/NAME.py")
    assert path_exists("reference/sim/scenarios/*.yaml")
    assert not dotted_exists("reference" + ".parts.nowhere") and not dotted_exists("reference" + ".core.result.nothing")
    assert not dotted_exists("reference" + ".lessons.py")
    assert dotted_exists("reference.core.result") and dotted_exists("reference.lessons.LESSONS")
