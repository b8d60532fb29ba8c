"""Checking a call's arguments against its tool's JSON Schema, with the `jsonschema` package."""
from __future__ import annotations

import datetime as dt
import sys
import threading
from typing import Any, Optional

from .translate import schema_problems

_IMPORTING = threading.Lock()


def load_jsonschema() -> Any:
    """The `jsonschema` package, imported on first use (never at module import: the demo must stay fast).

    With its format extras installed (Jupyter brings them), importing jsonschema also imports
    `rfc3987_syntax`, which builds an IRI grammar: about 1 s of the 1.1 s the import takes here
    (measured with `python -X importtime -c "import jsonschema"`). Tool schemas check no IRI
    formats, so unless something already loaded it, that one optional module is masked during the
    import (jsonschema skips the `iri` checkers when it is missing) and unmasked right after.

    Runs may start in many threads at once. The lock makes one of them import while the others wait:
    without it a second thread could take the half-built module from `sys.modules`, or unmask the
    optional module in the middle of the first thread's import.
    """
    with _IMPORTING:
        mask = "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules
        if mask:
            sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import -> ImportError
        try:
            import jsonschema  # here, not at the top: about a second to import with the format extras
        finally:
            if mask:
                del sys.modules["rfc3987_syntax"]
    return jsonschema


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
