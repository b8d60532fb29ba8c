"""The widget notebooks work on the ipywidgets 7 line too (Colab ships 7): the lab's and the mock
interview's widget tests, run again in a fresh virtual environment with ipywidgets<8.

Slow (a venv and a pip install, from PyPI or the local index): `pytest -m slow tests/test_ipywidgets7.py`.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_widget_tests_pass_under_ipywidgets_7(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "-q", "-e", str(ROOT), "ipywidgets>=7.7,<8",
                              "matplotlib>=3.8", "pytest>=8.0", "ipython"], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-2000:]
    version = subprocess.run([python, "-c", "import ipywidgets; print(ipywidgets.__version__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version.startswith("7."), version
    done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_lab.py",
                           "tests/test_mock_interview.py"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"ipywidgets {version}\n" + done.stdout[-3000:] + done.stderr[-2000:]
