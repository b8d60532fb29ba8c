"""Live mode: a scenario's tools against a real model, under a hard cost cap.

    model, pricing = live_model("anthropic:claude-haiku-4-5", max_cost_usd=0.50)
    episode = Episode.from_scenario(scenario, model=model)   # its fake tools, the real model

The key comes from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY) and so does an other address
(OPENAI_BASE_URL, ANTHROPIC_BASE_URL: the SDKs read them), which is how the tests point live mode
at `loopkit serve` instead of a real service. Prices come from providers/prices.json, never from code.

The cap is checked before each request: the request is refused (`CostCapReached`) if its estimated
input plus `max_tokens` of output, at the file's prices, would pass what is left. The estimate errs
high: ASCII at 3 characters a token (the usual rule says 4), any other character a token of its own
(Chinese, Japanese, Korean and emoji take one to three tokens per character in real tokenizers, and the
kit's 4-characters rule would count them four times too low).
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

from ..core.errors import HarnessError
from ..core.messages import Message, ToolSpec
from ..core.model import Model, Pricing, Turn
from ..wire.protocol import to_wire
from .adapters import AnthropicModel, OpenAIChatModel, OpenAIResponsesModel

PROVIDERS = {"openai": ("openai-chat", "OPENAI_API_KEY"), "openai-responses": ("openai-responses", "OPENAI_API_KEY"),
             "anthropic": ("anthropic", "ANTHROPIC_API_KEY")}
MAX_TOKENS = 1024  # the output a live request may use, unless told otherwise (the cap counts all of it)


class CostCapReached(HarnessError):
    """The next request could pass the run's cost cap: it was not sent."""


class LiveSetupError(HarnessError, ValueError):
    """Live mode cannot start: no key, no price, an unknown provider."""


class LiveConnectionError(HarnessError, ConnectionError):
    """The live endpoint could not be reached (after the SDK's own retries): not the model's doing."""


CONNECTION_ERRORS = ("APIConnectionError", "APITimeoutError")  # the SDKs' names (openai, anthropic: the same)


def prices() -> dict[str, Any]:
    return json.loads(resources.files("reference.providers").joinpath("prices.json").read_text(encoding="utf-8"))


def pricing_for(spec: str) -> Pricing:
    provider, _, model = spec.partition(":")
    table = prices()["models"]
    entry = table.get(f"{'openai' if provider == 'openai-responses' else provider}:{model}")
    if entry is None:
        raise LiveSetupError(f"no price for {spec!r} in reference/providers/prices.json (priced: "
                             f"{', '.join(sorted(table))}); add it, with its source, to use it")
    return Pricing(entry["input_per_mtok"], entry["output_per_mtok"])


def estimated_tokens(body: dict[str, Any]) -> int:
    """The input tokens of a request, counted high (see the module docstring)."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars) + 8 * len(body.get("messages") or body.get("input") or [])


@dataclass
class CostCap:
    """Wraps a live model: refuses a request that could pass `max_cost_usd`, adds up what each one cost."""

    inner: Model
    pricing: Pricing
    wire: str
    max_cost_usd: float
    max_tokens: int = MAX_TOKENS
    spent_usd: float = 0.0

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        estimate = (estimated_tokens(to_wire(messages, tools, self.wire)) * self.pricing.input_per_mtok
                    + self.max_tokens * self.pricing.output_per_mtok) / 1_000_000
        left = self.max_cost_usd - self.spent_usd
        if estimate > left:
            raise CostCapReached(f"the next request could cost up to ${estimate:.4f} (its input, estimated high, "
                                 f"and {self.max_tokens} output tokens) and ${left:.4f} of the ${self.max_cost_usd:g} "
                                 f"cap is left (${self.spent_usd:.4f} spent): not sent")
        try:
            turn = self.inner.complete(messages, tools, tool_choice=tool_choice)
        except Exception as exc:  # the SDKs' classes are matched by name: this module imports no SDK at the top
            if type(exc).__name__ not in CONNECTION_ERRORS:
                raise
            cause = exc.__cause__ or exc.__context__
            raise LiveConnectionError(f"cannot reach the {self.wire} endpoint: {exc}"
                                      + (f" ({type(cause).__name__}: {cause})" if cause else "")) from None
        self.spent_usd += self.pricing.cost(turn.usage)
        return turn


def _anthropic(key: str, environ: dict[str, str], name: str, max_tokens: int) -> Model:
    import anthropic  # lazy: `loopkit demo` must not pay for the SDKs

    client = anthropic.Anthropic(api_key=key, base_url=environ.get("ANTHROPIC_BASE_URL"))
    return AnthropicModel(client, model=name, max_tokens=max_tokens)


def _openai(adapter: Any, limit: str) -> Any:
    def build(key: str, environ: dict[str, str], name: str, max_tokens: int) -> Model:
        import openai  # lazy: as above

        return adapter(openai.OpenAI(api_key=key, base_url=environ.get("OPENAI_BASE_URL")), name, {limit: max_tokens})
    return build


# wire format -> the SDK client and adapter that reach the real service, with that API's output limit
BUILDERS = {"openai-chat": _openai(OpenAIChatModel, "max_completion_tokens"),
            "openai-responses": _openai(OpenAIResponsesModel, "max_output_tokens"), "anthropic": _anthropic}


def live_model(spec: str, max_cost_usd: float, *, max_tokens: int = MAX_TOKENS,
               environ: dict[str, str] | None = None) -> tuple[CostCap, Pricing]:
    """`spec` is provider:model (openai, openai-responses or anthropic). Raises LiveSetupError if it cannot start."""
    environ = dict(os.environ if environ is None else environ)
    provider, _, name = spec.partition(":")
    if provider not in PROVIDERS or not name:
        raise LiveSetupError(f"--live takes provider:model with provider one of {', '.join(PROVIDERS)}, got {spec!r}")
    wire, key_name = PROVIDERS[provider]
    if not environ.get(key_name, "").strip():
        raise LiveSetupError(f"live mode needs {key_name} in the environment (the key is never read from a file "
                             f"or an argument). To try it without a key: `loopkit serve SCENARIO`, then "
                             f"{key_name}=anything and {key_name.replace('API_KEY', 'BASE_URL')}=<the URL it prints"
                             f"{'/v1' if provider != 'anthropic' else ''}>")
    pricing = pricing_for(spec)
    model = BUILDERS[wire](environ[key_name], environ, name, max_tokens)
    return CostCap(model, pricing, wire, max_cost_usd, max_tokens), pricing
