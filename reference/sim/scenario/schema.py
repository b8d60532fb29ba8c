"""A whole scenario file as typed objects: tools and model (from their modules), limits, expectations.

The format is documented in docs/scenarios.md; `loading.py` reads files into a `Scenario`.
"""
from __future__ import annotations

import json
from typing import Any, Literal, Optional, Union

from pydantic import Field, field_validator, model_validator

from ...core.result import StopReason
from ...wire.formats import wire_format
from ..clock import parse_start
from .schema_script import ModelDef
from .schema_tools import Integer, Number, Strict, ToolDef

NEXT_ACTIONS = ("narrow", "rephrase", "retry_later", "hand_over")  # parts/degrade/next_steps.py, the same four

# The trajectory shapes of lesson 6 (reference/diagnosis/shapes.py): what the naive loop's run looks like
SHAPES = ("repeat", "cycle", "rephrase", "blowup", "error_storm", "drift", "polling", "healthy")
DEFAULT_SYSTEM = ("You are a helpful assistant. Use the tools when you need facts; "
                  "answer the user as soon as you have what you need.")


class ChecklistItem(Strict):
    """One thing the task needs. With `tool` (and optionally `when`, a subset of its arguments), the
    item counts as done once such a call has succeeded; without, only a final answer does it."""

    item: str
    tool: Optional[str] = None
    when: Optional[dict[str, Any]] = None


class LimitsDef(Strict):
    max_steps: Integer = Field(8, ge=1, le=10_000)
    max_run_tokens: Optional[Integer] = Field(None, ge=1)
    max_seconds: Optional[Number] = Field(None, gt=0)
    max_cost_usd: Optional[Number] = Field(None, gt=0)


class CancelDef(Strict):
    """The user presses stop: at a simulated second, or once a number of model requests are done.
    A loop that honours it checks between steps and while it waits to retry."""

    at_seconds: Optional[Number] = Field(None, ge=0)
    after_step: Optional[Integer] = Field(None, ge=0, le=10_000)

    @model_validator(mode="after")
    def _one(self) -> "CancelDef":
        if (self.at_seconds is None) == (self.after_step is None):
            raise ValueError("give exactly one of 'at_seconds' or 'after_step'")
        return self


class UserTurnDef(Strict):
    """What the scripted user says next, when the model has answered without tool calls (a conversation)."""

    text: str = Field(min_length=1)

    @field_validator("text")
    @classmethod
    def _said(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a user turn says something: give its text")
        return value


class Bound(Strict):
    min: Optional[Number] = None
    max: Optional[Number] = None

    @model_validator(mode="after")
    def _ordered(self) -> "Bound":
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min:g}) is greater than max ({self.max:g}): the bound can never hold")
        return self


class DegradedExpect(Strict):
    """Checks on the degraded output of a run that did not complete."""

    advice: Optional[Literal[NEXT_ACTIONS]] = Field(None, description="the first thing the user is advised to do")
    not_advised: list[Literal[NEXT_ACTIONS]] = Field(default_factory=list)
    unfinished: list[str] = Field(default_factory=list, description="items that must be listed as unfinished")
    not_obtained: list[str] = Field(default_factory=list, description="texts no obtained fact may hold")


class ExpectDef(Strict):
    """What a well-designed loop does on this scenario (the lesson-1 loop often does not)."""

    completable: bool
    stop_reason: Union[str, list[str]]
    oracle_model_calls: Optional[Integer] = Field(None, ge=1)
    model_calls: Optional[Bound] = None
    tool_calls: Optional[Bound] = None
    tokens: Optional[Bound] = None
    seconds: Optional[Bound] = None
    cost_usd: Optional[Bound] = None
    must_call: list[str] = Field(default_factory=list)
    must_not_repeat: list[str] = Field(default_factory=list)
    answered_once: list[str] = Field(default_factory=list, description="tools whose same answer to the same call "
                                     "never reaches the model twice")
    answer_contains: list[str] = Field(default_factory=list)
    answer_not_contains: list[str] = Field(default_factory=list)
    never_visible: list[str] = Field(default_factory=list, description="texts no message the model reads may hold")
    tool_calls_executed: Optional[Bound] = None
    interventions: Optional[Bound] = None
    detectors_fired: list[str] = Field(default_factory=list)
    degraded: Optional[DegradedExpect] = None

    @field_validator("stop_reason")
    @classmethod
    def _known(cls, v: Union[str, list[str]]) -> Union[str, list[str]]:
        known = {r.value for r in StopReason}
        for reason in [v] if isinstance(v, str) else v:
            if reason not in known:
                raise ValueError(f"unknown stop reason {reason!r}; expected one of {', '.join(sorted(known))}")
        return v

    @property
    def stop_reasons(self) -> list[str]:
        return [self.stop_reason] if isinstance(self.stop_reason, str) else list(self.stop_reason)


class Scenario(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    system: str = DEFAULT_SYSTEM
    user: str
    clock: str = "2026-11-30T09:00:00+08:00"
    intent: str = Field("general", description="the task family, for per-intent limits and thresholds")
    shape: Optional[Literal[SHAPES]] = Field(None, description="the trajectory shape the naive loop shows (lesson 6)")
    checklist: list[ChecklistItem] = Field(default_factory=list)
    limits: LimitsDef = LimitsDef()
    cancel: Optional[CancelDef] = Field(None, description="the user presses stop (lesson 4's cancel exit)")
    user_turns: list[UserTurnDef] = Field(default_factory=list, description="the user's replies, in order: each "
                                          "is said when the model answers without tool calls, until none is left")
    tools: list[ToolDef] = Field(min_length=1)
    model: ModelDef
    expect: ExpectDef
    source: Optional[str] = Field(None, exclude=True)

    @field_validator("clock")
    @classmethod
    def _clock(cls, value: str) -> str:
        try:
            parse_start(value)
        except ValueError as exc:
            raise ValueError(f"expected an ISO 8601 date-time with a UTC offset, like "
                             f"2026-11-30T09:00:00+08:00 ({exc})") from None
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "Scenario":
        names = [t.name for t in self.tools]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        if not self.model.allow_unknown_tools:
            for where, step in self.all_steps():
                for j, call in enumerate(step.tool_calls):
                    if call.tool not in names:
                        field = "call" if step.call is not None else f"calls[{j}]"
                        raise ValueError(f"{where}.{field}.tool: {call.tool!r} is not one of the scenario's "
                                         f"tools ({', '.join(names)}); set model.allow_unknown_tools to script it")
        for tool in self.tools:
            for alternative in tool.alternatives:
                if alternative not in names or alternative == tool.name:
                    raise ValueError(f"tools.{tool.name}.alternatives: {alternative!r} is not another of the "
                                     f"scenario's tools ({', '.join(names)})")
        if wire_format(self.model.wire).arguments_are_objects and self.object_free_arguments():
            raise ValueError(f"{self.object_free_arguments()[0]}: {self.model.wire} always returns tool input as a "
                             "JSON object, so malformed arguments can only be scripted for the OpenAI wire formats")
        for i, entry in enumerate(self.checklist):
            if entry.tool is not None and entry.tool not in names:
                raise ValueError(f"checklist[{i}].tool: {entry.tool!r} is not one of the scenario's tools "
                                 f"({', '.join(names)})")
        self._turns_can_be_said()
        for tool in self.expect.must_call + self.expect.must_not_repeat + self.expect.answered_once:
            if tool not in names:
                raise ValueError(f"expect: {tool!r} is not one of the scenario's tools ({', '.join(names)})")
        return self

    def _turns_can_be_said(self) -> None:
        """Each user turn follows an answer of the model, and the last turn needs one more answer after it."""
        turns = len(self.user_turns)
        answers = [step for _, step in self.all_steps() if step.answer is not None]
        if turns and not answers:
            raise ValueError("user_turns: the model never answers without tool calls, so no user turn is ever said")
        script_only = not (self.model.cycle or self.model.reactions or self.model.policy.stuck
                           or self.model.policy.repeat_last_call)
        said = sum(step.repeat for step in self.model.script if step.answer is not None)
        if turns and script_only and said < turns + 1:
            raise ValueError(f"user_turns: {turns} user turn{'s' if turns > 1 else ''} need {turns + 1} answers from "
                             f"the model's script (one before each turn, and the last word); it has {said}")

    def object_free_arguments(self) -> list[str]:
        """Where the script sends arguments that are not a JSON object (malformed JSON, a list...)."""
        where = []
        for place, step in self.all_steps():
            for j, call in enumerate(step.tool_calls):
                if call.raw_args is not None:
                    try:
                        ok = isinstance(json.loads(call.raw_args), dict)
                    except ValueError:
                        ok = False
                    if not ok:
                        where.append(f"{place}.{'call' if step.call is not None else f'calls[{j}]'}.raw_args")
        return where

    @property
    def provider_faults(self) -> bool:
        """Does the model's script fail some requests (429, 5xx, a timeout)? The lesson-1 loop lets that
        exception escape: it crashes, as a loop without a try does against a real provider."""
        return any(step.fault is not None for _, step in self.all_steps())

    @property
    def wires(self) -> tuple[str, ...]:
        """The wire formats this scenario can be replayed in."""
        if self.object_free_arguments():
            return ("openai-chat", "openai-responses")
        return ("openai-chat", "openai-responses", "anthropic")

    def all_steps(self):
        for part in ("script", "cycle"):
            for i, step in enumerate(getattr(self.model, part)):
                yield f"model.{part}[{i}]", step
        for r, reaction in enumerate(self.model.reactions):
            for part in ("then", "cycle"):
                for i, step in enumerate(getattr(reaction, part)):
                    yield f"model.reactions[{r}].{part}[{i}]", step
