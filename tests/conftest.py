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
import sys
from pathlib import Path

import pytest

from tests.helpers.file_order import longest_first


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """With pytest-xdist's workers (`-n auto`), each test file goes whole to one worker unless --dist says
    otherwise: a notebook's cells must run in order in one kernel, and a module's fixture is then made once.
    The files go out longest first (tests/helpers/file_order.py), not in xdist's order (most tests first)."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", "no") == "no":
        config.option.dist = "loadfile"
        config.option.loadscopereorder = False


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--target", default=os.environ.get("LOOPKIT_TARGET", "solutions"),
                     help="solutions (default), exercises, or comma-separated .py files / directories")


# The default suite runs each Hypothesis property on a few examples: enough to catch a property that no
# longer holds at all, cheap enough for a suite run fifty times a day. CI runs every property once with the
# count written on it (`LOOPKIT_PROPERTIES=full pytest -m hypothesis`, in .ci/run's slow phase).
QUICK_EXAMPLES = 25


def quick_property_examples(items: list[pytest.Item]) -> None:
    """Cap each property's max_examples at QUICK_EXAMPLES, keeping the rest of its settings."""
    from hypothesis import is_hypothesis_test, settings

    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        written = getattr(test, "_hypothesis_internal_use_settings", None)  # where @given keeps its settings
        if isinstance(item, pytest.Function) and is_hypothesis_test(test) and written is not None:
            if written.max_examples > QUICK_EXAMPLES:
                test._hypothesis_internal_use_settings = settings(written, max_examples=QUICK_EXAMPLES)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("LOOPKIT_PROPERTIES") != "full" and "hypothesis" in sys.modules:
        quick_property_examples(items)
    run_only_the_named_tests(config, items)
    if hasattr(config, "workerinput"):  # an xdist worker (each orders alike): the controller hands files out so
        longest_first(items)


def run_only_the_named_tests(config: pytest.Config, items: list[pytest.Item]) -> None:
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
