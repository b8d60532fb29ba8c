"""A tool's `parameters`: a JSON Schema for an object, checked when the scenario is loaded.

Every provider takes it as it is, so it must be a schema (jsonschema's metaschema check, the same
draft the executor validates arguments with), for an object, and self-contained: a `$ref` may only
point inside it ("#/$defs/date"), so nothing is ever fetched and no reference dangles, and it may not
lead back to itself without reading a part of the arguments: a `$ref` to itself (or a chain of them
through `allOf`, `anyOf`, `not`...) is a schema with no end, and checking any call against it would
never finish. A tree that recurses through `properties` or `items` is fine: each level reads a deeper
part of the arguments, which ends.
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
    _check_ref_cycles(value)
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
    if _target(ref, root) is None:
        raise ValueError(f"{where}: {ref!r} points to nothing in this schema")


def _target(ref: str, root: dict[str, Any]) -> tuple[Any, ...] | None:
    """The path that a '#/...' pointer names in `root`, or None when it names nothing."""
    node: Any = root
    path: list[Any] = []
    for part in ref[2:].split("/") if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node, part = node[part], part
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node, part = node[int(part)], int(part)
        else:
            return None
        path.append(part)
    return tuple(path)


# keywords whose subschemas apply to the same value as the schema that holds them (no deeper part is read)
_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONE = ("not", "if", "then", "else")


def _same_value(root: dict[str, Any], path: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], str]]:
    """The schemas applied to the same value as the one at `path`: (their path, how it was reached)."""
    node: Any = root
    for part in path:
        node = node[part]
    if not isinstance(node, dict):
        return []
    out = []
    for key in _REF_KEYWORDS:
        ref = node.get(key)
        if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")) and _target(ref, root) is not None:
            out.append((_target(ref, root), f"{key} {ref!r}"))
    for key in _SAME_VALUE_LISTS:
        if isinstance(node.get(key), list):
            out += [(path + (key, i), key) for i in range(len(node[key]))]
    out += [(path + (key,), key) for key in _SAME_VALUE_ONE if isinstance(node.get(key), dict)]
    if isinstance(node.get("dependentSchemas"), dict):
        out += [(path + ("dependentSchemas", k), "dependentSchemas") for k in node["dependentSchemas"]]
    return out


def _check_ref_cycles(root: dict[str, Any]) -> None:
    """Refuse a `$ref` that comes back to where it started without reading a deeper part of the value."""
    done: set[tuple[Any, ...]] = set()
    for start in _ref_holders(root, ()):
        stack, on_path = [(start, iter(_same_value(root, start)))], {start: 0}
        trail: list[str] = []
        while stack:
            path, edges = stack[-1]
            step = next(edges, None)
            if step is None:
                stack.pop()
                del on_path[path]
                done.add(path)
                if trail:
                    trail.pop()
                continue
            target, how = step
            if target in on_path:
                where = ".".join(str(p) for p in target) or "(the root)"
                chain = " -> ".join(trail[on_path[target]:] + [how])
                raise ValueError(f"{where}: leads back to itself ({chain}) without reading any part of the "
                                 "arguments, so checking a call against it never ends; recurse through "
                                 "'properties' or 'items' instead")
            if target not in done:
                on_path[target] = len(trail) + 1
                trail.append(how)
                stack.append((target, iter(_same_value(root, target))))


def _ref_holders(node: Any, path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The paths of the schemas that hold a reference (data keywords skipped, as in `_check_refs`)."""
    found: list[tuple[Any, ...]] = []
    if isinstance(node, list):
        for i, item in enumerate(node):
            found += _ref_holders(item, path + (i,))
    elif isinstance(node, dict):
        if any(isinstance(node.get(k), str) for k in _REF_KEYWORDS):
            found.append(path)
        for key, item in node.items():
            if key not in _DATA_KEYWORDS:
                found += _ref_holders(item, path + (key,))
    return found
