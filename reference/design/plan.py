"""Plan templates and plan validation: a plan-and-execute agent's plan, checked in code before a step runs.

A planner that re-plans every round never finishes; one that writes a plan no one checks calls a tool
the task does not allow, skips a step the task needs, or fetches a result before what it depends on.
The template says what every plan for the intent must hold; `validate_plan` refuses a plan that does
not, with every reason at once, and the runtime executes a valid plan step by step, once.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    after: list[str] = Field(default_factory=list)  # the steps whose results this one needs


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    intent: str
    steps: list[PlanStep] = Field(min_length=1, max_length=12)


class PlanTemplate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    intent: str
    required: tuple[str, ...]  # tools every plan must use
    allowed: tuple[str, ...]  # tools a plan may use
    order: tuple[tuple[str, str], ...] = ()  # (before, after): the second tool's step must come after the first's


class PlanError(ValueError):
    """A plan the runtime will not execute; `reasons` lists every problem, each one line."""

    def __init__(self, reasons: list[str]):
        super().__init__("the plan was refused: " + "; ".join(reasons))
        self.reasons = reasons


def validate_plan(raw: Any, template: PlanTemplate) -> Plan:
    """The plan, parsed strictly and checked against the template; PlanError with every reason if not."""
    try:
        plan = Plan.model_validate_json(raw) if isinstance(raw, (str, bytes)) else Plan.model_validate(raw)
    except ValidationError as exc:
        raise PlanError([f"{'.'.join(map(str, e['loc'])) or 'plan'}: {e['msg']}" for e in exc.errors()]) from None
    reasons = []
    if plan.intent != template.intent:
        reasons.append(f"intent {plan.intent!r} is not the template's {template.intent!r}")
    ids = [s.id for s in plan.steps]
    if len(set(ids)) != len(ids):
        reasons.append(f"step ids must be unique, got {ids}")
    tools = [s.tool for s in plan.steps]
    reasons += [f"step {s.id!r} uses {s.tool!r}, not one of the allowed tools {list(template.allowed)}"
                for s in plan.steps if s.tool not in template.allowed]
    reasons += [f"no step uses {t!r}, which the task requires" for t in template.required if t not in tools]
    position = {s.id: n for n, s in enumerate(plan.steps)}
    for s in plan.steps:
        for dep in s.after:
            if dep not in position:
                reasons.append(f"step {s.id!r} depends on {dep!r}, which is not in the plan")
            elif position[dep] >= position[s.id]:
                reasons.append(f"step {s.id!r} depends on {dep!r}, which comes later")
    first = {}
    for n, t in enumerate(tools):
        first.setdefault(t, n)
    for before, after in template.order:
        if before in first and after in first and first[after] < first[before]:
            reasons.append(f"{after!r} must come after {before!r}")
    if reasons:
        raise PlanError(reasons)
    return plan
