"""The layers of reference/ hold (docs/architecture.md): imports point down, modules stay small."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 300


# `lint-imports`, run by the interpreter running the tests: found whether or not the venv's bin is on PATH
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def test_every_import_points_down():
    done = subprocess.run([sys.executable, "-c", LINT_IMPORTS, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_no_module_in_reference_is_over_300_lines():
    long = {str(p.relative_to(ROOT)): n for p in sorted((ROOT / "reference").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these by job (docs/architecture.md): {long}"
