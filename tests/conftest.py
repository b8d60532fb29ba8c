"""Which code the exercise tests run against.

    pytest                                   # solutions/ (the default)
    pytest --target exercises                # your code in exercises/
    LOOPKIT_TARGET=exercises pytest          # the same, from the environment
    pytest --target path/to/file.py          # any file defining the exercise's functions
    pytest --target a.py,b.py                # several at once (each test runs once per target)
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--target", default=os.environ.get("LOOPKIT_TARGET", "solutions"),
                     help="solutions (default), exercises, or comma-separated .py files / directories")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """LOOPKIT_ONLY='{"target stem": ["test_a", ...]}': run only those tests for those targets (the red-flag
    meta-test needs each wrong answer checked by its named test, not by all of them)."""
    only = json.loads(os.environ.get("LOOPKIT_ONLY", "{}"))
    if not only:
        return
    keep, drop = [], []
    for item in items:
        target = getattr(item, "callspec", None) and item.callspec.params.get("target")
        stem = Path(target).stem if target else None
        (drop if stem in only and item.originalname not in only[stem] else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" in metafunc.fixturenames:
        targets = [t.strip() for t in metafunc.config.getoption("target").split(",") if t.strip()]
        metafunc.parametrize("target", targets, ids=[Path(t).stem for t in targets])


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
