"""Scenario files: YAML read into a validated `Scenario`, cached; the catalogue shipped with the kit.

A malformed file is rejected with a `ScenarioError` that names the file, the field and what was
expected (see `messages.py`).
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ...core.errors import ScenarioError
from .messages import problem_lines
from .schema import Scenario

CATALOGUE = Path(__file__).parent.parent / "scenarios"


def parse_scenario(data: Any, source: str = "<scenario>") -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: expected a mapping at the top level (name, title, user, tools, model, "
                            f"expect), got {type(data).__name__}")
    if isinstance(data.get("checklist"), list):  # plain strings are items without a tool
        data = {**data, "checklist": [{"item": c} if isinstance(c, str) else c for c in data["checklist"]]}
    try:
        return Scenario.model_validate({**data, "source": source})
    except ValidationError as exc:
        raise ScenarioError("\n".join(problem_lines(exc, source))) from None


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]  # libyaml: ~10x faster
    """Safe YAML, except that dates and times stay text: tool results are JSON, which has no dates, and an
    unquoted `date: 2026-12-01` must match the string argument a model sends (and `clock:` is a string)."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the file ({exc.strerror})") from None
    return _load_cached(str(path), stamp)


@functools.lru_cache(maxsize=256)
def _load_cached(path_text: str, stamp: int) -> Scenario:
    path = Path(path_text)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ScenarioError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    return parse_scenario(data, str(path))


def catalogue() -> list[Scenario]:
    """Every scenario shipped with the kit, in file-name order."""
    return [load_scenario(p) for p in sorted(CATALOGUE.glob("*.yaml"))]


def find(name_or_path: str) -> Scenario:
    """A catalogue scenario by name, or any scenario file by path."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return load_scenario(path)
    if (CATALOGUE / f"{name_or_path}.yaml").exists():
        return load_scenario(CATALOGUE / f"{name_or_path}.yaml")
    names = ", ".join(s.name for s in catalogue())
    raise ScenarioError(f"no scenario named {name_or_path!r}; the catalogue has: {names}")
