"""What `loopkit serve` answers, without the HTTP plumbing: bytes in, status, headers and bytes out.

The requests are handled by the kit's own `ScriptedServer` (reference/providers/server.py), one per
wire format, each over a `ScenarioModel` that replays the request's history: protocol checks, error
envelopes, responses and streams are the ones the in-process SDK tests use. This module adds what a
shared, long-running server needs: the books (hidden retries, reference/serve/books.py), the waits
on the wire, a header and a log line for a client that did not declare the scenario's tools, and
`GET /loopkit/books` to read the books from outside.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Protocol

from ..providers.server import ScriptedServer
from ..sim import tokens
from ..sim.scenario.schema import Scenario
from ..wire.formats import FORMATS, ROUTES, guess_format
from .books import Books, on_the_wire, retry_number
from .scenario_model import ScenarioModel, scripted_tools

KEEP_EXCHANGES = 0  # a long-running server keeps no request body: the books keep what they need (a digest)
BOOKS_PATH = "/loopkit/books"


class Responder(Protocol):
    def respond(self, method: str, path: str, headers: dict[str, str],
                content: bytes) -> tuple[int, dict[str, str], bytes]: ...


class ServeApp:
    """`servers` maps a wire format to what answers it (tests put a double there, e.g. one that says 429)."""

    def __init__(self, scenario: Scenario, *, seed: int | None = None,
                 servers: Mapping[str, Responder] | None = None, log: Callable[[str], None] = lambda line: None,
                 max_requests: int | None = None):
        self.scenario = scenario
        self.servers: dict[str, Responder] = dict(servers) if servers is not None else {
            wire: ScriptedServer(ScenarioModel(scenario, wire, seed=seed), keep=KEEP_EXCHANGES)
            for wire in FORMATS}
        self.books = Books()
        self.log = log
        self.scripted_tools = scripted_tools(scenario.model)
        self.max_requests = max_requests  # model requests answered at most; later ones get 429 (a runaway's cap)

    def respond(self, method: str, path: str, headers: dict[str, str],
                content: bytes) -> tuple[int, dict[str, str], bytes]:
        headers = {k.lower(): v for k, v in headers.items()}
        if method == "GET" and path == BOOKS_PATH:
            return 200, {"content-type": "application/json"}, json.dumps(self.books.figures()).encode("utf-8")
        fmt = ROUTES.get(path)
        wire = fmt.name if fmt else None
        if fmt is not None and self.books.over_cap(self.max_requests):
            self.log(f"{method} {path} 429 refused: over --max-requests {self.max_requests}")
            body = fmt.error_body("rate_limit", f"loopkit serve: over the cap of {self.max_requests} model requests "
                                                "(--max-requests).", None, "loopkit_max_requests")
            return 429, {"content-type": "application/json"}, json.dumps(body).encode("utf-8")
        body = _json(content)
        server = self.servers[(fmt or guess_format(headers)).name]
        model = getattr(server, "model", None)
        if isinstance(model, ScenarioModel):
            model.attempt.retries = retry_number(headers)  # a retry has its earlier attempts' faults behind it
            model.attempt.usage = None
        status, answer_headers, data = server.respond(method, path, headers, content)
        usage = getattr(model.attempt, "usage", None) if isinstance(model, ScenarioModel) else None
        if usage is not None and 200 <= status < 300:
            self.books.bill(usage.input_tokens, usage.output_tokens)
        missing = self.undeclared(wire, body)
        charged = self.books.record(headers, content, status, answer_headers, _input_tokens(body), missing)
        answer_headers = on_the_wire(status, answer_headers)
        if missing:
            answer_headers["x-loopkit-undeclared-tools"] = ",".join(missing)
        notes = [f"retry {retry_number(headers)} (waited {charged:g} s simulated)" if charged is not None else "",
                 f"undeclared scripted tools: {', '.join(missing)}" if missing else ""]
        self.log(" ".join([f"{method} {path} {status}", *filter(None, notes)]))
        return status, answer_headers, data

    def undeclared(self, wire: str | None, body: Any) -> list[str]:
        """The scripted tools a request does not declare (it still gets the script: the client runs its own tools)."""
        if wire is None or not isinstance(body, dict):
            return []
        declared = set()
        for tool in body.get("tools") or []:
            if isinstance(tool, dict):  # Chat nests the name under "function"; the others do not
                function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
                declared.add(function.get("name"))
        return [name for name in self.scripted_tools if name not in declared]


def _json(content: bytes) -> Any:
    try:
        return json.loads(content or b"null")
    except ValueError:
        return None


def _input_tokens(body: Any) -> int:
    return tokens.request_tokens(body) if isinstance(body, dict) else 0
