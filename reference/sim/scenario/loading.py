"""Scenario files: YAML read into a validated `Scenario`, cached; the catalogue shipped with the kit.

A malformed file is rejected with a `ScenarioError` that names the file, the field and what was
expected (see `messages.py`).
"""
from __future__ import annotations

import functools
import gc
from pathlib import Path
from typing import Any, Optional

from pydantic import ValidationError

from ...core.errors import ScenarioError
from .messages import problem_lines
from . import yaml_reader
from .schema import Scenario
from .yaml_reader import Lines

CATALOGUE = Path(__file__).parent.parent / "scenarios"


def parse_scenario(data: Any, source: str = "<scenario>", lines: Optional[Lines] = None) -> Scenario:
    """Validate YAML data (or the same structure built in Python); `lines` names the line of each problem."""
    if not isinstance(data, dict):
        got = "an empty file" if data is None and lines is not None else type(data).__name__
        raise ScenarioError(f"{source}: expected a mapping at the top level (name, title, user, tools, model, "
                            f"expect), got {got}")
    if isinstance(data.get("checklist"), list):  # plain strings are items without a tool
        data = {**data, "checklist": [{"item": c} if isinstance(c, str) else c for c in data["checklist"]]}
    if isinstance(data.get("user_turns"), list):  # a plain string is what the user says
        data = {**data, "user_turns": [{"text": t} if isinstance(t, str) else t for t in data["user_turns"]]}
    try:
        return Scenario.model_validate({**data, "source": source})
    except ValidationError as exc:
        line_of = (lambda loc: lines.line(data, loc)) if lines is not None else None
        raise ScenarioError("\n".join(problem_lines(exc, source, line_of))) from None


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
        raw = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the file ({exc.strerror})") from None
    collecting = gc.isenabled()
    gc.disable()  # a big file is hundreds of thousands of new objects: the cyclic collector would rescan them
    try:
        data, lines = yaml_reader.read(yaml_reader.decode(raw))
    except yaml_reader.YamlProblem as problem:
        where = f"{problem.where}: " if problem.where else ""
        line = f" (line {problem.line})" if problem.line and "line" not in problem.message else ""
        raise ScenarioError(f"{path}: {where}{problem.message}{line}") from None
    finally:
        if collecting:
            gc.enable()
    return parse_scenario(data, str(path), lines)


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
