"""In the candidate's process: a plain or SDK candidate turned into the kit's `loop(episode, max_steps)`.

The grader runs every kind through `run_candidate` (reference/sandbox/grading.py), which hands a loop an
episode in a sandboxed child. For a `plain` file, `llm(messages, tools)` sends an OpenAI Chat
Completions body over the channel to the grader's API (reference/grade/api.py), which checks it as the
real API would and asks the grader's model; for an SDK file, the SDK's own client does the same through an
httpx2 mock transport. A refused request is an HTTP 400 for the candidate, and a `http_error` event in the
grader's trace. `run_tool(name, args)` runs the scenario's tool on the
grader's side and returns its result as text, or raises what the tool raised.
"""
from __future__ import annotations

import asyncio
import importlib
import inspect
import json
from pathlib import Path
from typing import Any, Callable

from ..core.result import RunResult, StopReason
from ..providers.server import SCRIPTED_API_KEY, SCRIPTED_ORIGIN
from ..sandbox.child import load_loop, read_source
from ..wire.formats import wire_format
from ..wire.protocol import wire_module
from .api import api_for
from .kinds import Candidate

HEADERS = {"authorization": f"Bearer {SCRIPTED_API_KEY}", "content-type": "application/json"}


class BadRequestError(Exception):
    """What `llm(...)` raises for a request the API would refuse (HTTP 400), with the API's own text."""


class InternalServerError(Exception):
    """What `llm(...)` raises when the model behind the API failed (HTTP 5xx)."""


class Session:
    """The two plain functions and the books a plain or SDK candidate's run needs."""

    def __init__(self, episode: Any, wire: str):
        self.episode = episode
        self.server = api_for(episode)
        self.tools = wire_module(wire).to_request([], episode.tools.specs).get("tools", [])

    def llm(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """One Chat Completions request; the assistant message back, as a dict."""
        messages = list(messages)
        if not messages or not isinstance(messages[0], dict) or messages[0].get("role") not in ("system", "developer"):
            messages.insert(0, {"role": "system", "content": self.episode.scenario.system})
        body = {"model": "scripted", "messages": messages, "tools": self.tools if tools is None else tools}
        status, _, content = self.server.respond("POST", "/v1/chat/completions", HEADERS, json.dumps(body).encode())
        payload = json.loads(content)
        if status != 200:
            raise (BadRequestError if status < 500 else InternalServerError)(f"Error code: {status} - {payload}")
        return payload["choices"][0]["message"]

    def run_tool(self, name: str, args: dict[str, Any]) -> str:
        """The tool's result as the model would read it; raises what the tool raised."""
        if not isinstance(args, dict):
            raise TypeError(f"run_tool takes the arguments as a dict, got {type(args).__name__}")
        return self.episode.tools.invoke(name, args, self._call_id(name, args)).to_content()

    def _call_id(self, name: str, args: dict[str, Any]) -> str:
        """The id of the last turn's call this is (matched by name and arguments), for the grader's books."""
        steps = self.episode.ledger.steps
        if not steps:
            return ""
        answered = {t.call_id for t in steps[-1].tools}
        for call in steps[-1].tool_calls:
            try:
                same = json.loads(call["arguments"]) == args
            except ValueError:
                same = False
            if call["name"] == name and same and call["id"] not in answered:
                return call["id"]
        return ""

    def client(self, wire: str, is_async: bool) -> Any:
        import httpx2  # the SDKs load only for SDK candidates (and loopkit demo never pays for them)

        transport = httpx2.MockTransport(self.server)
        http = httpx2.AsyncClient(transport=transport) if is_async else httpx2.Client(transport=transport)
        options = dict(api_key=SCRIPTED_API_KEY, max_retries=0, http_client=http)
        fmt = wire_format(wire)
        sdk = importlib.import_module(fmt.sdk)  # the format's official SDK, loaded only for an SDK candidate
        client = getattr(sdk, fmt.sdk_clients[1] if is_async else fmt.sdk_clients[0])
        return client(base_url=SCRIPTED_ORIGIN + fmt.sdk_base_path, **options)

    def finish(self, returned: Any) -> RunResult:
        """The loop's run from what the function returned: a string (the answer) or a dict saying more."""
        claim = returned if isinstance(returned, dict) else {"answer": returned}
        answer = claim.get("answer")
        answer = answer if answer is None or isinstance(answer, str) else str(answer)
        steps = self.episode.ledger.steps
        ended_on_answer = bool(steps) and not steps[-1].tool_calls and bool(answer)
        reason = claim.get("stop_reason") or ("completed" if ended_on_answer else "max_steps")
        return self.episode.finish(StopReason(reason), [], answer=answer, degraded=claim.get("degraded"),
                                   detail=claim.get("detail"))


def candidate_loop(path: str, kind: str, function: str, params: list[str], is_async: bool) -> Callable[..., RunResult]:
    """`adapter` from plain data: how a fresh interpreter builds it (reference/sandbox/fresh.py `LoopEntry`)."""
    return adapter(Candidate(Path(path), kind, function, tuple(params), is_async))


def adapter(candidate: Candidate) -> Callable[..., RunResult]:
    """The kit-API loop that runs a plain or SDK candidate (imported in the child, where it runs, from the file
    as it is read here, before any of the candidate's code runs)."""
    source = read_source(candidate.path)

    def run(episode: Any, max_steps: int = 8) -> RunResult:
        function = load_loop(f"{candidate.path}::{candidate.function}", source)
        wire = candidate.wire or "openai-chat"
        session = Session(episode, wire)
        first = session.client(wire, candidate.is_async) if candidate.wire else session.llm
        given = {"llm": first, "client": first, "run_tool": session.run_tool, "user_message": episode.scenario.user,
                 "tools": session.tools, "max_steps": max_steps}
        order = (first, session.run_tool, episode.scenario.user, session.tools)
        args = []
        for i, name in enumerate(candidate.params):  # by name where the name is known, else in this order
            if name not in given and i >= len(order):
                break  # a parameter of its own (with a default, one hopes)
            args.append(given[name] if name in given else order[i])
        returned = function(*args)
        if inspect.iscoroutine(returned):
            returned = asyncio.run(returned)
        return session.finish(returned)

    run.__name__ = candidate.path.stem
    return run
