"""The layers of reference/ hold (docs/architecture.md): imports point down, modules stay small."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 300


def test_every_import_points_down():
    lint = shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is missing: install the dev extra (pip install -e '.[dev]')")
    done = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]

