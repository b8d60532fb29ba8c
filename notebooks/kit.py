"""What every lesson notebook needs before its first import: `from kit import ROOT, load_exercise`.

It sits in notebooks/, the kernel's working folder (Jupyter, `pytest --nbval` and notebooks/build.py
all start the kernel in the notebook's folder), so a notebook imports it as a plain module. It puts
the repository root on sys.path, found from this file's own location, so `reference` imports even
without `pip install -e .` and whatever folder Jupyter itself was started in.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reference.lessons import lesson_for  # noqa: E402  (importable only once ROOT is on sys.path)


def load_exercise(exercise: str, target: str = "solutions") -> ModuleType:
    """exercises/ or solutions/ exNN_name.py, imported from its file ("ex01", "ex03b" or "ex01_react_loop")."""
    module = lesson_for(exercise.split("_", 1)[0]).module
    path = ROOT / target / f"{module}.py"
    spec = importlib.util.spec_from_file_location(f"{module}_{target}", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot import {path}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # registered first: its dataclasses look their module up while it loads
    spec.loader.exec_module(loaded)
    return loaded
