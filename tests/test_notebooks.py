"""The stored notebooks are built from their sources in notebooks/src/ and have been run.

`pytest --nbval` re-runs them and compares outputs; this test catches the other drift: a source
edited without rebuilding (`python notebooks/build.py NN`)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_notebook_matches_its_source_and_was_run():
    done = subprocess.run([sys.executable, str(ROOT / "notebooks" / "build.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_lesson_has_a_notebook_and_an_exercise():
    notebooks = sorted(p.stem[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    exercises = sorted(p.stem[2:4] for p in (ROOT / "exercises").glob("ex[0-9][0-9]_*.py"))
    assert notebooks == exercises, f"notebooks {notebooks} vs exercises {exercises}"
