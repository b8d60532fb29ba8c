"""The test suite stays hermetic: a test imports helpers from tests.helpers only, never edits sys.path, never
skips on a broken import of the kit or of what it declares it needs, and starts Python tools through sys.executable, not through PATH.

Each rule is read from the test files' syntax trees, so a string that merely mentions `sys.path` (code a test
runs in a child, say) is not a violation.
"""
from __future__ import annotations

import ast
import re
from importlib.metadata import PackageNotFoundError, distribution, entry_points, requires
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
FILES = sorted(p for p in TESTS.rglob("*.py") if not {"red_flags", "candidates"} & set(p.relative_to(TESTS).parts))
CONSOLE_SCRIPTS = {e.name for e in entry_points(group="console_scripts")}  # lint-imports, pytest, loopkit, jupyter...


def declared_modules() -> set[str]:
    """The top-level modules of what the kit declares it needs (its dependencies and its dev extra), as installed:
    a skip on one of them would hide a broken install, as a skip on the kit's own would hide a broken kit. Read from
    each distribution's files (Python 3.10's packages_distributions() sees only a top_level.txt, which many wheels
    leave out: opentelemetry-sdk's)."""
    found: set[str] = set()
    for requirement in requires("agent-loop-interview-kit") or []:
        if ";" in requirement and not re.search(r"extra\s*==\s*['\"]dev['\"]", requirement):
            continue
        name = re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0]
        try:
            files = distribution(name).files or []
        except PackageNotFoundError:
            continue
        found |= {f.parts[0].removesuffix(".py") for f in files if f.suffix == ".py" and f.parts[0] != ".."
                  and not f.parts[0].endswith((".dist-info", ".data")) and f.parts[0] != "__pycache__"}
    return found


DECLARED = declared_modules() | {"reference"}


def imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return []


def dotted(node: ast.AST) -> str:
    """`sys.path.insert` for that attribute chain, "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def violations(code: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(code, name)):
        where = f"{name}:{getattr(node, 'lineno', '?')}"
        for module in imported(node):
            last = module.split(".")[-1] if module.startswith("tests.") else module.split(".")[0]
            if last == "conftest" or last.startswith("test_"):
                found.append(f"{where} imports {module}: shared code belongs in tests/helpers")
        if isinstance(node, ast.Call):
            called = dotted(node.func)
            if called.startswith("sys.path."):
                found.append(f"{where} calls {called}: import through tests.helpers or load_script instead")
            if called in ("pytest.importorskip", "importorskip") and node.args and isinstance(node.args[0], ast.Constant) \
                    and str(node.args[0].value).split(".")[0] in DECLARED:
                found.append(f"{where} skips when {node.args[0].value}, which the kit needs, fails to import")
            tool = None
            on_path = not any(k.arg == "path" for k in node.keywords)  # which(name, path=a venv's bin) is no lookup
            if called == "shutil.which" and on_path and node.args and isinstance(node.args[0], ast.Constant):
                tool = node.args[0].value
            elif called.startswith("subprocess.") and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) \
                    and node.args[0].elts and isinstance(node.args[0].elts[0], ast.Constant):
                tool = node.args[0].elts[0].value
            if tool in CONSOLE_SCRIPTS:
                found.append(f"{where} looks {tool} up on PATH: run it as [sys.executable, '-m', ...]")
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                base = target.value if isinstance(target, ast.Subscript) else target
                if dotted(base) == "sys.path":
                    found.append(f"{where} assigns to sys.path")
    return found


def test_the_rules_are_read_from_every_test_file_and_helper():
    names = {p.name for p in FILES}
    assert {"conftest.py", "test_suite_hygiene.py", "targets.py", "__init__.py"} <= names, names


@pytest.mark.parametrize("code, broken", [
    ("from conftest import load_exercise", True),
    ("from test_protocol import INVARIANTS", True),
    ("from tests.test_protocol import INVARIANTS", True),
    ("import sys\nsys.path.insert(0, 'x')", True),
    ("import sys\nsys.path[:0] = ['x']", True),
    ("import pytest\npytest.importorskip('reference.parts.executor')", True),
    ("import pytest\npytest.importorskip('opentelemetry.sdk')", True),  # declared in the dev extra
    ("import subprocess\nsubprocess.run(['pytest', '-q'])", True),
    ("import shutil\nshutil.which('pytest')", True),
    # what must stay allowed
    ("from tests.helpers.targets import load_exercise", False),
    ("import pytest\npytest.importorskip('playwright.sync_api')", False),
    ("import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pytest'])", False),
    ("import shutil\nshutil.which('curl')", False),
    ("import shutil\nshutil.which('loopkit', path='venv/bin')", False),
    ("code = 'import sys; sys.path.insert(0, \"x\")'", False),
])
def test_each_rule_fires_on_its_case_and_only_there(code, broken):
    found = violations(code, "probe.py")
    assert bool(found) is broken, (code, found)


def test_no_test_file_breaks_the_suites_rules():
    found = [v for path in FILES for v in violations(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)))]
    assert not found, "\n".join(found)
