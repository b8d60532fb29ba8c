"""The Colab and Binder badges, and the notebooks' Colab set-up cell, made from the one repository URL.

    python notebooks/badges.py       # the README's badge lines (tests/test_colab.py checks they are there)

The URL is `Repository` under [project.urls] in pyproject.toml. notebooks/build.py puts the badge and
the set-up cell at the top of every notebook, so changing the URL means: edit pyproject.toml, run
`python notebooks/build.py`, paste this script's output into the README.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BRANCH = "main"  # the branch Colab and Binder open
COLAB_SVG = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_SVG = "https://mybinder.org/badge_logo.svg"


def repository_url(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """`Repository = "..."` under [project.urls] (read with a regular expression: tomllib is 3.11+)."""
    text = pyproject.read_text(encoding="utf-8")
    urls = re.search(r"^\[project\.urls\]\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    found = urls and re.search(r'^Repository\s*=\s*"(https://github\.com/[^"]+?)/?"', urls.group(1), re.MULTILINE)
    if not found:
        raise ValueError(f"{pyproject}: no `Repository = \"https://github.com/owner/name\"` under [project.urls]")
    return found.group(1)


def github_path(url: str) -> str:
    """owner/name"""
    return url.removeprefix("https://github.com/").removesuffix(".git")


def colab_badge(notebook: str, url: str) -> str:
    """notebook: its path in the repository, e.g. notebooks/01_react_loop.ipynb"""
    link = f"https://colab.research.google.com/github/{github_path(url)}/blob/{BRANCH}/{notebook}"
    return f"[![Open In Colab]({COLAB_SVG})]({link})"


def binder_badge(url: str) -> str:
    return f"[![Binder]({BINDER_SVG})](https://mybinder.org/v2/gh/{github_path(url)}/{BRANCH}?urlpath=lab)"


def badge_cell(notebook: str, url: str) -> str:
    """The notebook's first cell (Markdown)."""
    return f"{colab_badge(notebook, url)} {binder_badge(url)}"


SETUP = '''\
# On Colab only: fetch the kit, install it, and move into its notebooks/ folder. Anywhere else (your
# clone, Binder, `pytest --nbval`) this cell does nothing.
import sys

try:
    import google.colab  # noqa: F401  (exists only on Colab)
    ON_COLAB = True
except ImportError:
    ON_COLAB = False

if ON_COLAB:
    import os
    import subprocess
    from pathlib import Path

    url = os.environ.get("LOOPKIT_REPO_URL", "{url}")
    clone = Path(os.environ.setdefault("LOOPKIT_CLONE", str(Path.cwd() / "{name}")))
    if not clone.exists():
        subprocess.run(["git", "clone", "--quiet", url, str(clone)], check=True)
    # The kit and its own dependencies only: not the dev extra and no --upgrade, so Colab keeps the
    # Jupyter, ipywidgets and matplotlib it ships with.
    pip = os.environ.get("LOOPKIT_PIP", f"{{sys.executable}} -m pip").split()
    subprocess.run([*pip, "install", "--quiet", "-e", str(clone)], check=True)
    os.chdir(clone / "notebooks")
    sys.path.insert(0, str(clone / "notebooks"))  # so that `from kit import ...` finds notebooks/kit.py'''


def setup_cell(url: str) -> str:
    """The notebook's first code cell."""
    return SETUP.format(url=url, name=github_path(url).split("/")[-1])


def readme_lines(notebooks: list[str], url: str) -> list[str]:
    """One line per notebook for the README, then the Binder badge."""
    return [f"- `{nb}` {colab_badge(nb, url)}" for nb in notebooks] + [f"- all of them on Binder {binder_badge(url)}"]


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from reference.lessons import LESSONS

    print("\n".join(readme_lines([lesson.notebook for lesson in LESSONS], repository_url())))
