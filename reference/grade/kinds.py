"""Which of the four kinds a candidate file is, read from its source without running it (Python's ast).

    kit               a module-level `loop(episode, max_steps)` (or `react_loop`): the kit's own API
    plain             a module-level `agent(llm, run_tool, user_message, tools)`: the whiteboard loop on two
                      plain functions, with OpenAI-style message dicts
    openai-chat       `agent(client, run_tool, user_message, tools)` in a file that uses the openai SDK's
                      `chat.completions` (the default for an openai file)
    openai-responses  the same, calling `client.responses.create`
    anthropic         the same, in a file that imports `anthropic` (Messages API)

The first parameter's name decides between `plain` (`llm`) and an SDK (`client`); a module-level
`WIRE = "openai-chat" | "openai-responses" | "anthropic"` overrides what the imports and calls suggest.
`async def agent(...)` gets the SDK's async client. `path.py::name` grades another function name.
docs/grading.md has the examples; docs/candidates/ has a template of each kind.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

KIT_NAMES = ("loop", "react_loop")
AGENT_NAME = "agent"
SDK_WIRES = ("openai-chat", "openai-responses", "anthropic")
KINDS = ("kit", "plain") + SDK_WIRES
MAX_SOURCE = 1_000_000  # characters: a candidate is a page of code, not a data file


class NotACandidate(ValueError):
    """The file is not one of the four kinds: the message says what the grader looked for."""


@dataclass(frozen=True)
class Candidate:
    path: Path
    kind: str  # one of KINDS
    function: str
    params: tuple[str, ...]
    is_async: bool = False

    @property
    def wire(self) -> str | None:
        """The wire format the candidate speaks, if its kind fixes one (an SDK)."""
        return self.kind if self.kind in SDK_WIRES else None


def detect(spec: str | Path) -> Candidate:
    """The candidate in `spec` (`path.py` or `path.py::function`), or NotACandidate saying why not."""
    path_text, _, name = str(spec).partition("::")
    path = Path(path_text)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise NotACandidate(f"cannot read {path}: {exc}") from None
    if len(source) > MAX_SOURCE:
        raise NotACandidate(f"{path.name} is {len(source):,} characters long: not a candidate loop")
    try:
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise NotACandidate(f"{path.name} is not valid Python: {exc}") from None
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names = [name] if name else [n for n in (*KIT_NAMES, AGENT_NAME) if n in functions]
    if not names or names[0] not in functions:
        raise NotACandidate(
            f"{path.name} defines no {'function ' + repr(name) if name else 'loop'}: write `def loop(episode, "
            "max_steps)` (the kit's API), `def agent(llm, run_tool, user_message, tools)` (plain functions) or "
            "`def agent(client, run_tool, user_message, tools)` (the openai or anthropic SDK); see docs/grading.md")
    node = functions[names[0]]
    params = tuple(a.arg for a in node.args.posonlyargs + node.args.args)
    is_async = isinstance(node, ast.AsyncFunctionDef)
    if not params:
        raise NotACandidate(f"{path.name}: `{node.name}` takes no parameters; see docs/grading.md for the four kinds")
    first = params[0]
    if first in ("episode", "ep") or (node.name in KIT_NAMES and first not in ("llm", "client")):
        kind = "kit"
    elif first == "llm":
        kind = "plain"
    elif first == "client":
        kind = _sdk_wire(tree, source)
    else:
        raise NotACandidate(f"{path.name}: the first parameter of `{node.name}` is `{first}`; name it `episode` "
                            "(the kit's API), `llm` (plain functions) or `client` (an SDK): see docs/grading.md")
    if is_async and kind in ("kit", "plain"):
        raise NotACandidate(f"{path.name}: `async def {node.name}` is for the SDKs' async clients; a {kind} loop "
                            "is a plain `def`")
    return Candidate(path, kind, node.name, params, is_async)


def _sdk_wire(tree: ast.Module, source: str) -> str:
    """WIRE = "..." if the file says; else its imports and calls."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "WIRE" for t in node.targets)
                and isinstance(node.value, ast.Constant) and node.value.value in SDK_WIRES):
            return node.value.value
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    if "anthropic" in imported and "openai" not in imported:
        return "anthropic"
    if "responses.create" in source:
        return "openai-responses"
    if "openai" in imported or "chat.completions" in source:
        return "openai-chat"
    if "messages.create" in source:
        return "anthropic"
    raise NotACandidate("an `agent(client, ...)` file must import openai or anthropic (or set WIRE = "
                        "\"openai-chat\" | \"openai-responses\" | \"anthropic\"); see docs/grading.md")
