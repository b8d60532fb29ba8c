"""A tool's `parameters`: a JSON Schema for an object, checked when the scenario is loaded.

Every provider takes it as it is, so it must be a schema (jsonschema's metaschema check, the same
draft the executor validates arguments with), for an object, and self-contained: a `$ref` may only
point inside it ("#/$defs/date"), so nothing is ever fetched and no reference dangles.
"""
from __future__ import annotations

import functools
import json
from typing import Any

from ...core.lazy import load_jsonschema

_DATA_KEYWORDS = ("enum", "const", "default", "examples")  # values, not schemas: a "$ref" there is data
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


def check_parameters(value: dict[str, Any]) -> dict[str, Any]:
    if value.get("type", "object") != "object":
        raise ValueError(f"the arguments schema must have type 'object', got {value.get('type')!r}")
    properties = value.get("properties", {})
    if not isinstance(properties, dict):
        raise ValueError(f"'properties' must be a mapping of argument names to schemas, got {type(properties).__name__}")
    for name, schema in properties.items():
        if not isinstance(schema, (dict, bool)):
            raise ValueError(f"properties.{name}: expected a schema (a mapping), got {type(schema).__name__}")
    _check_refs(value, value, "")
    problem = _metaschema_problem(json.dumps(value, sort_keys=True))
    if problem:
        raise ValueError(problem)
    return value


@functools.lru_cache(maxsize=512)  # the catalogue repeats a few schemas many times
def _metaschema_problem(schema_json: str) -> str:
    jsonschema = load_jsonschema()
    schema = json.loads(schema_json)
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.exceptions.SchemaError as err:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.path).lstrip(".")
        return f"not a valid JSON Schema: {where + ': ' if where else ''}{err.message}"
    except Exception as err:  # noqa: BLE001  # e.g. an unhashable $schema: still the author's mistake
        return f"not a valid JSON Schema ({type(err).__name__}: {err})"
    return ""


def _check_refs(node: Any, root: dict[str, Any], where: str) -> None:
    if isinstance(node, list):
        for i, item in enumerate(node):
            _check_refs(item, root, f"{where}[{i}]")
    elif isinstance(node, dict):
        for key, item in node.items():
            here = f"{where}.{key}" if where else str(key)
            if key in _REF_KEYWORDS and isinstance(item, str):
                _check_ref(item, root, here)
            elif key not in _DATA_KEYWORDS:
                _check_refs(item, root, here)


def _check_ref(ref: str, root: dict[str, Any], where: str) -> None:
    if ref != "#" and not ref.startswith("#/"):
        raise ValueError(f"{where}: {ref!r} points outside the schema; a $ref may only point inside it, "
                         "like '#/$defs/date' (nothing is ever fetched)")
    node: Any = root
    for part in ref[2:].split("/") if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ValueError(f"{where}: {ref!r} points to nothing in this schema")
