"""Checking a call's arguments against its tool's JSON Schema, with the `jsonschema` package."""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional

from ...core.lazy import load_jsonschema
from .translate import schema_problems

class Validators:
    """One validator per tool, built on its first call (building one compiles the schema)."""

    def __init__(self) -> None:
        self._by_tool: dict[str, Any] = {}

    def problem(self, name: str, schema: dict[str, Any], args: dict[str, Any],
                today: Optional[dt.date]) -> Optional[tuple[str, dict[str, Any]]]:
        """(message, fields) when `args` break the schema of tool `name`; None when they fit."""
        validator = self._by_tool.get(name)
        if validator is None:
            jsonschema = load_jsonschema()
            cls = jsonschema.validators.validator_for(schema)
            validator = self._by_tool[name] = cls(schema, format_checker=cls.FORMAT_CHECKER)
        found = sorted(validator.iter_errors(args), key=_relevance)
        if not found:
            return None
        return schema_problems(found, schema, today)


def _relevance(error: Any) -> tuple[int, str]:
    """Missing and unknown arguments first (the call's shape), then the values, in argument order."""
    order = {"required": 0, "additionalProperties": 1}
    return order.get(error.validator, 2), "/".join(str(p) for p in error.path)
