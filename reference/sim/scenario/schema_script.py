"""The scripted model of a scenario file: its steps, reactions, policy, pricing and latency.

Part of the scenario format (docs/scenarios.md); `schema.py` assembles the whole file.
"""
from __future__ import annotations

import json
from typing import Any, Literal, Optional, Union

from pydantic import Field, model_validator

from .schema_tools import Integer, Number, Strict


class CallDef(Strict):
    tool: str
    args: Optional[dict[str, Any]] = None
    raw_args: Optional[str] = Field(None, description="the exact argument text, e.g. malformed JSON or odd spacing")
    id: Optional[str] = Field(None, description="force a call id (to script protocol faults)")

    @model_validator(mode="after")
    def _args(self) -> "CallDef":
        if self.args is not None and self.raw_args is not None:
            raise ValueError("give 'args' or 'raw_args', not both")
        return self

    def arguments_text(self) -> str:
        if self.raw_args is not None:
            return self.raw_args
        return json.dumps(self.args or {}, ensure_ascii=False)


class StepDef(Strict):
    """One model turn: tool calls (with optional text), or a final answer."""

    calls: Optional[list[CallDef]] = Field(None, min_length=1)
    call: Optional[CallDef] = None
    text: Optional[str] = None
    answer: Optional[str] = None
    finish_reason: Optional[Literal["stop", "length", "refusal"]] = None
    repeat: Integer = Field(1, ge=1, le=1000)

    @model_validator(mode="after")
    def _shape(self) -> "StepDef":
        kinds = [k for k in ("calls", "call", "answer") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a step needs exactly one of 'calls', 'call' or 'answer', got "
                             + (" and ".join(f"'{k}'" for k in kinds) or "none of them"))
        if self.answer is not None and self.text is not None:
            raise ValueError("'text' goes with tool calls; an answer step has only 'answer'")
        return self

    @property
    def tool_calls(self) -> list[CallDef]:
        return self.calls or ([self.call] if self.call else [])


class WhenDef(Strict):
    """Matches a tool result that answered the model's previous turn."""

    error_type: Optional[Union[str, list[str]]] = None
    contains: Optional[str] = None
    is_error: Optional[bool] = None

    @model_validator(mode="after")
    def _some(self) -> "WhenDef":
        if self.error_type is None and self.contains is None and self.is_error is None:
            raise ValueError("give at least one of 'error_type', 'contains', 'is_error'")
        return self


class ReactionDef(Strict):
    """A cooperative model changes course: when a result matches, the rest of its plan is replaced."""

    when: WhenDef
    then: list[StepDef] = Field(default_factory=list)
    cycle: list[StepDef] = Field(default_factory=list)

    @model_validator(mode="after")
    def _steps(self) -> "ReactionDef":
        if not self.then and not self.cycle:
            raise ValueError("a reaction needs 'then' or 'cycle' steps")
        return self


class PolicyDef(Strict):
    """Seeded stochastic behaviour, for fleets of runs."""

    repeat_last_call: Number = Field(0.0, ge=0.0, le=1.0)
    stuck: Number = Field(0.0, ge=0.0, le=1.0, description="probability (drawn once per run) that the model never "
                         "concludes: where its plan says answer, it repeats its last tool call instead")


class PricingDef(Strict):
    input_per_mtok: Number = Field(2.5, ge=0)
    output_per_mtok: Number = Field(10.0, ge=0)


class LatencyDef(Strict):
    base_seconds: Number = Field(0.5, ge=0)
    per_output_token_seconds: Number = Field(0.02, ge=0)
    per_input_token_seconds: Number = Field(0.00002, ge=0)


class ModelDef(Strict):
    name: str = "scripted-model"
    wire: Literal["openai-chat", "openai-responses", "anthropic"] = "openai-chat"
    pricing: PricingDef = PricingDef()
    latency: LatencyDef = LatencyDef()
    script: list[StepDef] = Field(default_factory=list)
    cycle: list[StepDef] = Field(default_factory=list)
    reactions: list[ReactionDef] = Field(default_factory=list)
    policy: PolicyDef = PolicyDef()
    seed: Integer = 0
    allow_unknown_tools: bool = False
    answer_without_tools: Optional[str] = Field(
        None, description="what the model answers when asked to answer without calling tools")

    @model_validator(mode="after")
    def _plan(self) -> "ModelDef":
        if not self.script and not self.cycle:
            raise ValueError("the model needs a 'script' or a 'cycle'")
        return self
