"""The kit through the official SDKs: provider adapters in front, scripted clients behind them.

`OpenAIChatModel`, `OpenAIResponsesModel` and `AnthropicModel` implement the kit's `Model` protocol
over an SDK client. Over a scripted client (`scripted_openai_client`, `scripted_anthropic_client`,
answered in-process by `server.ScriptedServer`) they run offline; over a real one they call the provider:

    OpenAIChatModel(openai.OpenAI())              # reads OPENAI_API_KEY; optional, never required
    episode, server = sdk_episode(find("happy-path"), "anthropic")   # offline, through the SDK

The SDKs (openai, anthropic, httpx2) are imported inside functions only: `loopkit demo` must not pay
for them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from ..core.messages import Message, ToolSpec
from ..core.model import Model, Turn
from ..harness.episode import Episode
from ..harness.trace import Trace
from ..sim.scenario.schema import Scenario
from ..sim.scripted import ScriptedModel
from ..wire.protocol import wire_module
from .server import ANTHROPIC_BASE_URL, OPENAI_BASE_URL, SCRIPTED_API_KEY, ScriptedServer

if TYPE_CHECKING:
    import anthropic
    import openai

# Defaults for real use, taken from the model lists of the installed SDKs (openai 3.57, anthropic
# 2.14); not checked against the live services. Pass `model=` to choose.
DEFAULT_OPENAI_MODEL = "gpt-5.4-mini"
DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"



# ------------------------------------------------------------------------------ scripted clients

def _server(model_or_server: Model | ScriptedServer) -> ScriptedServer:
    return model_or_server if isinstance(model_or_server, ScriptedServer) else ScriptedServer(model_or_server)


def scripted_openai_client(model: Model | ScriptedServer, **client_kwargs: Any) -> "openai.OpenAI":
    """An `openai.OpenAI` whose requests are answered in-process by `model` (Chat and Responses)."""
    import httpx2
    import openai

    options: dict[str, Any] = dict(api_key=SCRIPTED_API_KEY, base_url=OPENAI_BASE_URL, max_retries=0,
                                   _strict_response_validation=True)
    options.update(client_kwargs)
    return openai.OpenAI(http_client=httpx2.Client(transport=_server(model).transport()), **options)


def scripted_anthropic_client(model: Model | ScriptedServer, **client_kwargs: Any) -> "anthropic.Anthropic":
    """An `anthropic.Anthropic` whose requests are answered in-process by `model`."""
    import anthropic
    import httpx2

    options: dict[str, Any] = dict(api_key=SCRIPTED_API_KEY, base_url=ANTHROPIC_BASE_URL, max_retries=0,
                                   _strict_response_validation=True)
    options.update(client_kwargs)
    return anthropic.Anthropic(http_client=httpx2.Client(transport=_server(model).transport()), **options)


# ------------------------------------------------------------------------------ provider adapters

def _choice_kwargs(tool_choice: str, tools: Sequence[ToolSpec], none: Any) -> dict[str, Any]:
    if tool_choice not in ("auto", "none"):
        raise ValueError(f"tool_choice must be 'auto' or 'none', got {tool_choice!r}")
    # "auto" is every API's default when tools are offered; with no tools there is nothing to forbid
    return {"tool_choice": none} if tool_choice == "none" and tools else {}


@dataclass
class OpenAIChatModel:
    """The kit's `Model` over `client.chat.completions.create`."""

    client: Any  # openai.OpenAI
    model: str = DEFAULT_OPENAI_MODEL
    options: dict[str, Any] = field(default_factory=dict)  # more create() arguments, e.g. temperature

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        wire = wire_module("openai-chat")
        choice = _choice_kwargs(tool_choice, tools, "none")  # checked before anything is sent
        body = wire.to_request(messages, tools)
        response = self.client.chat.completions.create(model=self.model, **body, **choice, **self.options)
        return wire.turn_from_response(response.model_dump())


@dataclass
class OpenAIResponsesModel:
    """The kit's `Model` over `client.responses.create` (stateless: the whole input every time)."""

    client: Any  # openai.OpenAI
    model: str = DEFAULT_OPENAI_MODEL
    options: dict[str, Any] = field(default_factory=dict)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        wire = wire_module("openai-responses")
        choice = _choice_kwargs(tool_choice, tools, "none")  # checked before anything is sent
        body = wire.to_request(messages, tools)
        # `id` is optional on input items; the kit derives one from the call id, which a real server never
        # issued (and, with store=false, could not look up), so only the call ids travel.
        body["input"] = [{k: v for k, v in item.items() if not (k == "id" and item.get("type") == "function_call")}
                         for item in body["input"]]
        response = self.client.responses.create(model=self.model, **body, **choice, **self.options)
        return wire.turn_from_response(response.model_dump())


@dataclass
class AnthropicModel:
    """The kit's `Model` over `client.messages.create`."""

    client: Any  # anthropic.Anthropic
    model: str = DEFAULT_ANTHROPIC_MODEL
    max_tokens: int = 4096  # required by the API; the SDK refuses non-streaming calls it expects to exceed 10 min
    options: dict[str, Any] = field(default_factory=dict)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        wire = wire_module("anthropic")
        choice = _choice_kwargs(tool_choice, tools, {"type": "none"})  # checked before anything is sent
        body = wire.to_request(messages, tools)
        response = self.client.messages.create(model=self.model, max_tokens=self.max_tokens, **body, **choice,
                                               **self.options)
        return wire.turn_from_response(response.model_dump())


def sdk_model(wire: str, model: Model | ScriptedServer) -> Model:
    """The adapter for `wire`, over a scripted client that serves `model`."""
    if wire not in SDK_ADAPTERS:
        raise ValueError(f"unknown wire format {wire!r}; expected {', '.join(SDK_ADAPTERS)}")
    adapter, client = SDK_ADAPTERS[wire]
    return adapter(client(model))


SDK_ADAPTERS = {"openai-chat": (OpenAIChatModel, scripted_openai_client),  # wire format -> (adapter, client)
                "openai-responses": (OpenAIResponsesModel, scripted_openai_client),
                "anthropic": (AnthropicModel, scripted_anthropic_client)}


def sdk_episode(scenario: Scenario, wire: str, *, seed: int | None = None,
                trace: Trace | None = None) -> tuple[Episode, ScriptedServer]:
    """An Episode whose model is the scenario's scripted model, reached through the official SDK for `wire`.

    The scripted model is built as `Episode.from_scenario` builds it (same label and seed, hence the
    same tool-call ids) and shares the episode's clock, so usage, cost and time match the in-process run.
    The harness traces it like any run (`trace`, or one in memory): the trace replays without the SDK.
    """
    scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
    scripted = ScriptedModel(scenario.model, seed=seed, label=scenario.name)
    server = ScriptedServer(scripted)
    episode = Episode.from_scenario(scenario, seed=seed, model=sdk_model(wire, server), trace=trace)
    scripted.clock = episode.clock  # one clock: the model's latency shows in the run's time
    scripted.outputs = episode.tools.outputs  # and one set of books of what the tools returned
    return episode, server
