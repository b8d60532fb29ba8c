"""What a tool definition of the corpus says about itself, read from its own facts only.

The flows of tool_corpus_flows.py pick their tools here: never by name, always by what the definition
states (MCP annotations, the HTTP method of an OpenAPI operation, the JSON Schema of its input).
Nothing in this file imports the kit, so the flows can be built for any checkout.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent / "tool_corpus" / "tools.jsonl"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}  # RFC 9110 section 9.2.1: methods defined as read-only


@dataclass(frozen=True)
class ToolDef:
    """One definition as the corpus holds it (name, description, schema, annotations, method, source)."""
    name: str
    description: str
    schema: dict[str, Any]
    annotations: dict[str, Any] | None
    http_method: str | None
    http_path: str | None
    source: dict[str, str] = field(default_factory=dict)

    @property
    def repository(self) -> str:
        return self.source.get("repository", "")

    @property
    def server(self) -> str:
        """Which server or API the definition belongs to: an OpenAPI file; an MCP server's source folder."""
        path = self.source.get("path", "")
        return f"{self.repository}:{path if self.http_method else '/'.join(path.split('/')[:2])}"

    @property
    def kit_name(self) -> str:
        """The name as a model API accepts it (^[a-zA-Z0-9_-]{1,64}$), as any converter must write it."""
        return re.sub(r"[^a-zA-Z0-9_-]", "_", self.name)[:64]

    def props(self) -> dict[str, dict[str, Any]]:
        props = self.schema.get("properties")
        return props if isinstance(props, dict) else {}

    def required(self) -> list[str]:
        return [n for n in self.schema.get("required", []) if n in self.props()]


def load_corpus(path: str | Path = CORPUS) -> list[ToolDef]:
    tools = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            tools.append(ToolDef(r["name"], r.get("description", ""), r.get("input_schema") or {"type": "object"},
                                 r.get("annotations"), r.get("http_method"), r.get("http_path"), r.get("source", {})))
    return tools


def may_change_state(tool: ToolDef) -> bool | None:
    """MCP annotations first (a present object's missing readOnlyHint defaults to false, per the spec), then the
    HTTP method (safe methods read); None when the definition says neither."""
    if isinstance(tool.annotations, dict):
        return not tool.annotations.get("readOnlyHint", False)
    if tool.http_method:
        return tool.http_method.upper() not in SAFE_METHODS
    return None


def destructive(tool: ToolDef) -> bool:
    """MCP destructiveHint (default true for a tool that may change state); DELETE for an HTTP operation."""
    if isinstance(tool.annotations, dict):
        return bool(may_change_state(tool)) and tool.annotations.get("destructiveHint", True) is not False
    return (tool.http_method or "").upper() == "DELETE"


def reads(tools: list[ToolDef]) -> list[ToolDef]:
    return [t for t in tools if may_change_state(t) is False]


def writes(tools: list[ToolDef]) -> list[ToolDef]:
    return [t for t in tools if may_change_state(t) is True]


def _kind(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    return kind[0] if isinstance(kind, list) and kind else kind if isinstance(kind, str) else ""


def _text(name: str, schema: dict[str, Any]) -> str:
    return f"{name} {schema.get('description', '')}".lower()


def entity_ids(tool: ToolDef) -> list[str]:
    """Required numeric or UUID properties other than paging: what identifies one entity (an issue number, a
    pet id, a Notion page id)."""
    return [n for n in tool.required() if n not in page_numbers(tool) and (
        _kind(tool.props()[n]) in ("integer", "number") or tool.props()[n].get("format") == "uuid")]


def page_numbers(tool: ToolDef) -> list[str]:
    """Numeric properties that are a page number or an offset (the APIs' own paging fields)."""
    return [n for n, s in tool.props().items() if _kind(s) in ("integer", "number")
            and (n.lower() in ("page", "offset") or _text("", s).strip().startswith("page number"))]


def cursors(tool: ToolDef) -> list[str]:
    """String properties the schema describes as a pagination cursor."""
    return [n for n, s in tool.props().items() if _kind(s) == "string" and "cursor" in _text(n, s)]


def queries(tool: ToolDef) -> list[str]:
    """Free-text string properties the schema calls a query (no enum: any wording is accepted)."""
    return [n for n, s in tool.props().items() if _kind(s) == "string" and "enum" not in s and "query" in _text(n, s)]


def paths(tool: ToolDef) -> list[str]:
    """String properties that hold a file path."""
    return [n for n, s in tool.props().items() if _kind(s) == "string" and (n.lower() == "path" or n.lower().endswith("_path"))]


def dates(tool: ToolDef) -> list[str]:
    """String properties that hold a date or a timestamp: `format: date` or `date-time`, or described as ISO 8601."""
    return [n for n, s in tool.props().items() if _kind(s) == "string" and n not in queries(tool) and (
        s.get("format") in ("date", "date-time") or re.search(r"ISO ?8601|YYYY-MM-DD", s.get("description", "")))]


def plain_numbers(tool: ToolDef) -> list[str]:
    """Numeric properties that are neither ids nor page numbers (a page size, a line count)."""
    taken = set(entity_ids(tool)) | set(page_numbers(tool))
    return [n for n, s in tool.props().items() if _kind(s) in ("integer", "number") and n not in taken]


def sample(name: str, schema: dict[str, Any], n: int = 1) -> Any:
    """A plausible value for one property: the schema's enum, a number within its bounds, a text naming it."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][n % len(schema["enum"])]
    if "const" in schema:
        return schema["const"]
    options = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(options, list) and options and isinstance(options[0], dict):
        return sample(name, options[0], n)  # a value of the first alternative fits the whole
    kind = _kind(schema)
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", 1), schema.get("maximum", 10_000)
        return int(min(max(low, 100 + n), high))
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        return [sample(name, items, n)]
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return {k: sample(k, props[k], n) for k in schema.get("required", []) if k in props}
    if schema.get("format") == "uuid":
        return f"00000000-0000-4000-8000-{n:012d}"
    if schema.get("format") == "date":
        return f"2026-12-{1 + n % 28:02d}"
    return f"{name}-{n}"


def arguments(tool: ToolDef, n: int = 1, **fixed: Any) -> dict[str, Any]:
    """The required arguments (entity `n`; a schema's default where it gives one), with `fixed` values over them."""
    ids = entity_ids(tool)
    args = {k: sample(k, s, n) if k in ids else s["default"] if "default" in s else sample(k, s)
            for k, s in ((k, tool.props()[k]) for k in tool.required())}
    args.update(fixed)
    return args


def shared_required(a: ToolDef, b: ToolDef) -> set[str]:
    """The required parameters both tools describe alike (type and format), so one value can name the same thing
    in both: a read's `page_id` written as text is not a write's `page_id` that must be a UUID."""
    def alike(name: str) -> bool:
        sa, sb = a.props().get(name, {}), b.props().get(name, {})
        return _kind(sa) == _kind(sb) and sa.get("format") == sb.get("format")
    return {n for n in set(a.required()) & set(b.required()) if alike(n)}

