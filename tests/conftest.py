"""Which code the exercise tests run against.

    pytest                                   # solutions/ (the default)
    pytest --target exercises                # your code in exercises/
    LOOPKIT_TARGET=exercises pytest          # the same, from the environment
    pytest --target path/to/file.py          # any file defining the exercise's functions
    pytest --target a.py,b.py                # several at once (each test runs once per target)
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """With pytest-xdist's workers (`-n auto`), each test file goes whole to one worker unless --dist says
    otherwise: a notebook's cells must run in order in one kernel, and a module's fixture is then made once."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", "no") == "no":
        config.option.dist = "loadfile"


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
