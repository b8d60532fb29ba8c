"""The code an exercise test runs against: solutions/, exercises/, a directory, or one .py file (`--target`)."""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_exercise(target: str, name: str):
    """Import `name`.py from the target (solutions/, exercises/, a directory, or one .py file)."""
    if target in ("solutions", "exercises"):
        path = ROOT / target / f"{name}.py"
    elif target.endswith(".py"):
        path = Path(target)
    else:
        path = Path(target) / f"{name}.py"
    path = path.resolve()
    module_name = f"_loopkit_target_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses (and pickling) look their module up there
    spec.loader.exec_module(module)
    return module
