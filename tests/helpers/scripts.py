"""Load one of the repository's scripts (benchmarks/, notebooks/) by its path, without putting its folder on
sys.path: a module of that name elsewhere (notebooks/kit.py, say) stays out of the test run."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_script(relative: str) -> ModuleType:
    """The module at ROOT/relative, imported once per run under a name of its own."""
    path = ROOT / relative
    name = "_loopkit_script_" + relative.removesuffix(".py").replace("/", "_").replace("-", "_")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
