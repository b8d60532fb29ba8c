"""The HTTP API a plain or SDK candidate talks to, served on the grader's side of the channel.

A plain candidate's `llm(...)` and an SDK candidate's client send the API's own request bodies. `GraderApi`
checks each one as the service checks it (reference/providers/server.py), in the grader's process, with the
grader's model behind it; the candidate's process only forwards the bytes (`ForwardedApi`), so nothing the
candidate's code does there can skip the check, and the episode server refuses a request in the kit's own
form from such a loop. A refused request is an HTTP 400 for the candidate and an `http_error` event in the
grader's trace. A loop run in the grader's own process (a trusted one) gets the `GraderApi` itself.
"""
from __future__ import annotations

from typing import Any

from ..providers.server import Exchange, ScriptedServer
from ..sandbox.remote import RemoteEpisode


class GraderApi(ScriptedServer):
    """The scripted server around the grader's episode: every refused request is an event in the grader's trace
    and counts in `model_calls`, as a request the model itself refused does (reference/sandbox/grading.py)."""

    def __init__(self, episode: Any):
        super().__init__(episode.model)
        self.episode = episode

    def exchange(self, method: str, path: str, headers: dict[str, str],
                 content: bytes) -> tuple[Exchange, dict[str, str]]:
        refusals = getattr(getattr(self.episode.model, "inner", None), "refusals", None)  # the grader's CappedModel
        refused_before = len(refusals) if isinstance(refusals, list) else 0
        exchange, response_headers = super().exchange(method, path, headers, content)
        if 400 <= exchange.status < 500:  # refused; a 5xx is the model's own failure (the runaway cap, say)
            error = exchange.response.get("error") if isinstance(exchange.response, dict) else None
            message = str(error.get("message", "") if isinstance(error, dict) else exchange.response)[:500]
            self.episode.trace.event("http_error", status=exchange.status, message=message)
            if isinstance(refusals, list) and len(refusals) == refused_before:  # refused here, before the model
                refusals.append(message)
        return exchange, response_headers


class ForwardedApi:
    """In the candidate's process: every request goes, as bytes, to the grader's API over the channel."""

    def __init__(self, episode: RemoteEpisode):
        self.episode = episode

    def respond(self, method: str, path: str, headers: dict[str, str],
                content: bytes) -> tuple[int, dict[str, str], bytes]:
        return self.episode.http(method, path, headers, content)

    def __call__(self, request: Any) -> Any:  # an httpx2.MockTransport handler, as ScriptedServer is
        import httpx2  # only SDK candidates need it

        headers = {k.lower(): v for k, v in request.headers.items()}
        status, response_headers, content = self.respond(request.method, request.url.path, headers, request.content)
        return httpx2.Response(status, content=content, headers=response_headers)


def api_for(episode: Any) -> GraderApi | ForwardedApi:
    """The API a candidate's requests go to: the grader's, over the channel where the episode is remote."""
    return ForwardedApi(episode) if isinstance(episode, RemoteEpisode) else GraderApi(episode)
