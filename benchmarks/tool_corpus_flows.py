"""Flows over real tool definitions, as kit scenarios, each with its expectation fixed by construction.

A flow is a scripted model that uses one or two tools of the corpus (benchmarks/tool_corpus/tools.jsonl)
the way agents use them. Legitimate flows must complete with no intervention; stuck flows repeat
without end (a stubborn model: it never reads what the loop says) and must be intervened on and stopped
within STOP_WITHIN model calls after the loop became visible (`onset`). The tools of each flow are
picked by their facts (tool_corpus_facts.py), never by name. Dicts only: the kit is not imported here.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tool_corpus_facts as F  # noqa: E402

STUCK_STEPS = 30   # the stuck model's step limit: ending there is a missed loop
STOP_WITHIN = 6    # model calls after `onset` within which a stuck flow must have been stopped
PER_KIND = 12      # flows per kind at most, spread over the corpus's sources
OPENAI_DESCRIPTION_MAX = 1024  # characters of a tool description the OpenAI APIs accept
ANNOTATION_KEYS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(frozen=True)
class Flow:
    name: str
    kind: str
    legit: bool
    scenario: dict[str, Any]
    onset: int | None = None  # stuck flows: the model call at which the loop is plain to see

    @property
    def tools(self) -> list[str]:
        return [t["name"] for t in self.scenario["tools"]]


def tool_spec(tool: F.ToolDef, rules: list[dict[str, Any]]) -> dict[str, Any]:
    """The definition as a kit scenario tool: name, description, schema and annotations as published. The kit's
    format has no field for an HTTP method, so it is stated where OpenAPI converters put it, in the description."""
    description = tool.description
    if tool.http_method:
        description = f"{tool.http_method} {tool.http_path}. {description}".strip()
    spec: dict[str, Any] = {"name": tool.kit_name, "description": description, "parameters": tool.schema,
                            "rules": rules}
    if isinstance(tool.annotations, dict):
        spec["annotations"] = {k: v for k, v in tool.annotations.items() if k in ANNOTATION_KEYS}
    return spec


def call(tool: F.ToolDef, args: dict[str, Any]) -> dict[str, Any]:
    return {"call": {"tool": tool.kit_name, "args": args}}


def scenario(name: str, title: str, user: str, tools: list[dict[str, Any]], script: list[dict[str, Any]],
             legit: bool, answer: str = "", cycle: list[dict[str, Any]] | None = None,
             max_steps: int | None = None) -> dict[str, Any]:
    model: dict[str, Any] = {"script": script}
    if any(len(t.get("description", "")) > OPENAI_DESCRIPTION_MAX for t in tools):
        model["wire"] = "anthropic"  # OpenAI refuses a longer tool description; Anthropic's API takes it
    if cycle:
        model["cycle"] = cycle
    expect: dict[str, Any] = {"completable": legit, "stop_reason": "completed" if legit else
                              ["repeated_call", "alternation", "same_result", "no_progress", "circuit_open"]}
    if legit:
        expect.update(answer_contains=[answer], interventions={"max": 0})
    steps = max_steps or (len(script) + 4 if legit else STUCK_STEPS)
    return {"name": name, "title": title, "user": user, "limits": {"max_steps": steps}, "tools": tools,
            "model": model, "expect": expect}


def ok(data: Any) -> dict[str, Any]:
    return {"data": data}


def conflict(tool: F.ToolDef) -> dict[str, Any]:
    """The kit has no 409/412 fault: the error reaches the model as an MCP server relays an HTTP error, a failed
    call whose message carries the API's status line."""
    status = "412 Precondition Failed" if tool.http_method in ("PUT", "PATCH") else "409 Conflict"
    return {"fault": "invalid_argument", "message": f"{status}: the resource was changed by someone else since it "
            "was read (expected version 1, found version 2)."}


def same_entity(w: F.ToolDef, read_args: dict[str, Any], n: int = 1) -> dict[str, Any]:
    """The write's arguments, naming the entity the read named (the same values for the parameters they share)."""
    return F.arguments(w, n, **{k: v for k, v in read_args.items() if k in w.required()})


# ---- legitimate flows ------------------------------------------------------------------------------------

def read_write_read(w: F.ToolDef, r: F.ToolDef) -> Flow:
    """Read, change, read again to check: after a DELETE the re-read finds nothing (404), as it should."""
    a = F.arguments(r)
    after = {"fault": "not_found"} if w.http_method == "DELETE" else ok({**a, "version": 2, "state": "after"})
    tools = [tool_spec(r, [{"results": [ok({**a, "version": 1, "state": "before"}), after]}]),
             tool_spec(w, [{"result": ok({"updated": True})}])]
    script = [call(r, a), call(w, same_entity(w, a)), call(r, a), {"answer": "Done: the re-read confirms the change."}]
    return Flow(f"rwr-{w.kit_name}", "read_write_read", True,
                scenario("x", "read, write, read again", "Change it and check the change.", tools, script, True,
                         "confirms the change"))


def start_then_poll(w: F.ToolDef, r: F.ToolDef) -> Flow:
    a = F.arguments(r)
    states = [{"status": "queued"}, {"status": "in_progress", "progress": 30}, {"status": "in_progress",
              "progress": 70}, {"status": "completed", "conclusion": "success"}]
    tools = [tool_spec(w, [{"result": ok({"started": True, "status": "queued"})}]),
             tool_spec(r, [{"results": [ok({**a, **s}) for s in states]}])]
    script = [call(w, same_entity(w, a))] + [call(r, a)] * len(states) + [{"answer": "It completed: success."}]
    return Flow(f"poll-{w.kit_name}", "start_then_poll", True,
                scenario("x", "start, then poll a status that moves", "Start it and tell me when it is done.",
                         tools, script, True, "success"))


def paging(r: F.ToolDef) -> Flow:
    a = F.arguments(r)
    if F.page_numbers(r):
        p = F.page_numbers(r)[0]
        first = 0 if p.lower() == "offset" else 1
        pages = [{**a, p: first + i} for i in range(4)]
    else:
        p = F.cursors(r)[0]
        pages = [dict(a)] + [{**a, p: f"cursor-{i}"} for i in range(1, 4)]
    rules = [{"when": {p: args[p]}, "result": ok({"items": [{"id": 10 * i + k} for k in range(3)],
                                                     "next": f"cursor-{i + 1}" if i < 3 else None})}
             for i, args in enumerate(pages) if p in args]
    rules.append({"result": ok({"items": [{"id": k} for k in range(3)], "next": "cursor-1"})})
    script = [call(r, args) for args in pages] + [{"answer": "All 12 items, over 4 pages."}]
    return Flow(f"paging-{r.kit_name}", "paging", True,
                scenario("x", "paging with an advancing cursor", "List all of them.", [tool_spec(r, rules)], script,
                         True, "12 items"))


def conflict_edit(w: F.ToolDef, r: F.ToolDef) -> str | None:
    """What the second write changes: the version it is based on when the schema has such a field (GitHub's `sha`,
    an `If-Match` header), else a free-text field, where the agent re-applies its edit to the new version."""
    version = next((n for n in w.props() if n.lower() in ("sha", "etag", "if-match", "version")), None)
    if version or w.http_method:  # an OpenAPI operation: its JSON body, never a header or a path parameter
        return version or ("body" if w.props().get("body", {}).get("type") == "object" else None)
    texts = [n for n, s in w.props().items() if s.get("type") == "string" and "enum" not in s
             and n not in r.required() and n not in F.paths(w)]
    return texts[0] if texts else None


def edited(w: F.ToolDef, field: str, version: int) -> Any:
    if w.props()[field].get("type") != "object":
        return f"{field} on version {version}"
    body = F.sample("body", w.props()["body"])
    body = body if isinstance(body, dict) else {}
    body["description" if "description" in w.props()["body"].get("properties", {}) else "note"] = f"on version {version}"
    return body


def conflict_retry(w: F.ToolDef, r: F.ToolDef) -> Flow:
    """Read, write (409/412: changed meanwhile), re-read, write again based on what the re-read shows."""
    a, edit = F.arguments(r), conflict_edit(w, r)
    b = same_entity(w, a)
    first, second = dict(b, **{edit: edited(w, edit, 1)}), dict(b, **{edit: edited(w, edit, 2)})
    tools = [tool_spec(r, [{"results": [ok({**a, "version": 1}), ok({**a, "version": 2})]}]),
             tool_spec(w, [{"results": [conflict(w), ok({"updated": True, "version": 3})]}])]
    script = [call(r, a), call(w, first), call(r, a), call(w, second), {"answer": "Saved as version 3."}]
    return Flow(f"conflict-{w.kit_name}", "conflict_retry", True,
                scenario("x", "optimistic concurrency: re-read and write again after a conflict",
                         "Change it, even if someone else is editing it.", tools, script, True, "version 3"))


def batch_lookup(r: F.ToolDef) -> Flow:
    key = F.entity_ids(r)[0]
    ids = [F.arguments(r, n) for n in range(1, 7)]
    rules = [{"when": {key: args[key]}, "result": ok({**args, "summary": f"entity {args[key]}"})} for args in ids]
    parallel = {"calls": [call(r, args)["call"] for args in ids[3:]]}  # the last three in one turn, as models do
    script = [call(r, args) for args in ids[:3]] + [parallel, {"answer": "Looked up all six."}]
    return Flow(f"batch-{r.kit_name}", "batch_lookup", True,
                scenario("x", "batch lookups of different ids", "Look up these six.", [tool_spec(r, rules)], script,
                         True, "all six"))


def long_task(w: F.ToolDef, r: F.ToolDef) -> Flow:
    key = F.entity_ids(r)[0]
    script: list[dict[str, Any]] = []
    for n in range(1, 10):  # nine entities: read, change, verify = 27 calls, then the answer
        a = F.arguments(r, n)
        b = same_entity(w, a, n)
        script += [call(r, a), call(w, b), call(r, a)]
    script.append({"answer": "All nine are updated and verified."})
    after = {"fault": "not_found"} if w.http_method == "DELETE" else ok({"state": "after"})
    tools = [tool_spec(r, [{"advance": "arguments", "results": [ok({"state": "before"}), after]}]),
             tool_spec(w, [{"result": ok({"updated": True})}])]
    return Flow(f"long-{w.kit_name}", "long_task", True,
                scenario("x", f"a 28-step task over nine entities ({key})", "Update all nine and verify each.",
                         tools, script, True, "nine", max_steps=40))
