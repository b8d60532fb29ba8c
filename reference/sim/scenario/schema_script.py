"""The scripted model of a scenario file: its steps, reactions, policy, pricing and latency.

Part of the scenario format (docs/scenarios.md); `schema.py` assembles the whole file.
"""
from __future__ import annotations

import json
from typing import Any, Literal, Optional, Union

from pydantic import Field, field_validator, model_validator

from .schema_tools import Integer, Number, Strict, check_regex


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

    @field_validator("id")
    @classmethod
    def _id(cls, value: Optional[str]) -> Optional[str]:
        # no provider documents what an empty id does, so the kit cannot play it faithfully; and a blank that
        # quietly became a generated id would hide the fault its author meant to script
        if value is not None and not value.strip():
            raise ValueError(f"an id of {value!r} is no call id: leave 'id' out to get a generated one, or give the "
                             "id to script (a duplicate, another call's id)")
        return value

    def arguments_text(self) -> str:
        if self.raw_args is not None:
            return self.raw_args
        return json.dumps(self.args or {}, ensure_ascii=False)


MODEL_FAULTS = ("rate_limit", "server_error", "overloaded", "timeout")  # HTTP 429, 500, 529, no answer in time


class StepDef(Strict):
    """One model turn: tool calls (with optional text), a final answer, or a provider failure (`fault`)."""

    calls: Optional[list[CallDef]] = Field(None, min_length=1)
    call: Optional[CallDef] = None
    text: Optional[str] = None
    answer: Optional[str] = None
    fault: Optional[Literal[MODEL_FAULTS]] = Field(None, description="the request fails as the provider's would")
    retry_after_seconds: Optional[Number] = Field(None, ge=0, description="with a fault: the Retry-After it sends")
    timeout_seconds: Number = Field(30.0, gt=0, le=3600, description="with fault: timeout, how long it hangs")
    finish_reason: Optional[Literal["stop", "length", "refusal"]] = None
    repeat: Integer = Field(1, ge=1, le=1000)

    @model_validator(mode="after")
    def _shape(self) -> "StepDef":
        kinds = [k for k in ("calls", "call", "answer", "fault") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a step needs exactly one of 'calls', 'call', 'answer' or 'fault', got "
                             + (" and ".join(f"'{k}'" for k in kinds) or "none of them"))
        if self.answer is not None and self.text is not None:
            raise ValueError("'text' goes with tool calls; an answer step has only 'answer'")
        if self.fault is None and self.retry_after_seconds is not None:
            raise ValueError("'retry_after_seconds' goes with 'fault' (a provider failure)")
        if self.fault is not None and (self.text is not None or self.finish_reason is not None):
            raise ValueError("a 'fault' step is a failed request: it has no 'text' or 'finish_reason'")
        return self

    @property
    def tool_calls(self) -> list[CallDef]:
        return self.calls or ([self.call] if self.call else [])


class WhenDef(Strict):
    """Matches a tool result that answered the model's previous turn. Every condition given must hold;
    `contains` is a text or a list of texts (any of them), `matches` a regular expression searched in
    the result's text; `ignore_case` applies to both. `not_from_tool: true` holds when what the model
    received for a call is not what the tool returned for it (withheld, replaced or added to), decided from
    the run's books, whatever the words (reference/sim/books.py): the way to script a model that listens
    to an intervention."""

    not_from_tool: Optional[bool] = None
    error_type: Optional[Union[str, list[str]]] = None
    contains: Optional[Union[str, list[str]]] = None
    matches: Optional[str] = None
    ignore_case: bool = False
    is_error: Optional[bool] = None

    @model_validator(mode="after")
    def _some(self) -> "WhenDef":
        if (self.error_type is None and self.contains is None and self.matches is None and self.is_error is None
                and self.not_from_tool is None):
            raise ValueError("give at least one of 'not_from_tool', 'error_type', 'contains', 'matches', 'is_error'")
        if self.matches is not None:
            check_regex(self.matches, "matches")
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
