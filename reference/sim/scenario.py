"""Scenario files: a failure scenario in YAML, validated into typed objects.

The format is documented in docs/scenarios.md. A malformed file is rejected with a `ScenarioError`
that names the file, the field and what was expected, e.g.

    scenarios/x.yaml: model.script[2].calls[0].tool: 'serch_flights' is not one of the scenario's
    tools (search_flights, get_weather)
"""
from __future__ import annotations

import difflib
import functools
import json
import re
from pathlib import Path
from typing import Any, Literal, Optional, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..core.errors import ScenarioError
from ..core.result import StopReason
from .clock import parse_start

CATALOGUE = Path(__file__).parent / "scenarios"
# The trajectory shapes of lesson 6 (reference/diagnosis/shapes.py): what the naive loop's run looks like
SHAPES = ("repeat", "cycle", "rephrase", "blowup", "error_storm", "drift", "polling", "healthy")
DEFAULT_SYSTEM = ("You are a helpful assistant. Use the tools when you need facts; "
                  "answer the user as soon as you have what you need.")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------- tools

class ResultDef(Strict):
    """What one call of a tool returns: data, or a fault."""

    data: Any = None
    fault: Optional[Literal["timeout", "rate_limit", "server_error", "invalid_argument", "permission_denied",
                            "not_found", "business_failure", "exception", "connection_reset"]] = None
    message: Optional[str] = None
    retry_after_seconds: Optional[float] = Field(None, ge=0)
    timeout_seconds: float = Field(30.0, gt=0)
    error_code: Optional[str] = None
    size_chars: Optional[int] = Field(None, gt=0, description="huge output: about this many characters")
    grow_chars: Optional[int] = Field(None, gt=0, description="output grows by this many characters per call")


class RuleDef(Strict):
    """`when` (a subset of the arguments) selects the rule; `result` or `results` (one per call, the last
    repeating) says what the tool returns."""

    when: Optional[dict[str, Any]] = None
    result: Optional[ResultDef] = None
    results: Optional[list[ResultDef]] = Field(None, min_length=1)
    latency_seconds: Optional[float] = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_result(self) -> "RuleDef":
        if (self.result is None) == (self.results is None):
            raise ValueError("give exactly one of 'result' or 'results'")
        return self

    def matches(self, args: dict[str, Any]) -> bool:
        return self.when is None or all(k in args and args[k] == v for k, v in self.when.items())


def _object_schema(value: dict[str, Any]) -> dict[str, Any]:
    """Tool arguments are a JSON object: the schema must say so in a shape every provider accepts."""
    if value.get("type", "object") != "object":
        raise ValueError(f"the arguments schema must have type 'object', got {value.get('type')!r}")
    properties = value.get("properties", {})
    if not isinstance(properties, dict):
        raise ValueError(f"'properties' must be a mapping of argument names to schemas, got {type(properties).__name__}")
    for name, schema in properties.items():
        if not isinstance(schema, (dict, bool)):
            raise ValueError(f"properties.{name}: expected a schema (a mapping), got {type(schema).__name__}")
    return value


class ToolDef(Strict):
    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    latency_seconds: float = Field(0.2, ge=0)
    volatile: bool = Field(False, description="results change over time (a job status, a queue length): "
                                             "calling it again with the same arguments can be progress")
    alternatives: list[str] = Field(default_factory=list, description="other tools of the scenario that can do "
                                    "this job; lesson 5's executor suggests them when this one fails")
    rules: list[RuleDef] = Field(min_length=1)

    @field_validator("parameters")
    @classmethod
    def _parameters(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _object_schema(value)


# ---------------------------------------------------------------- the model's script

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
    repeat: int = Field(1, ge=1, le=1000)

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

    repeat_last_call: float = Field(0.0, ge=0.0, le=1.0)
    stuck: float = Field(0.0, ge=0.0, le=1.0, description="probability (drawn once per run) that the model never "
                         "concludes: where its plan says answer, it repeats its last tool call instead")


class PricingDef(Strict):
    input_per_mtok: float = Field(2.5, ge=0)
    output_per_mtok: float = Field(10.0, ge=0)


class LatencyDef(Strict):
    base_seconds: float = Field(0.5, ge=0)
    per_output_token_seconds: float = Field(0.02, ge=0)
    per_input_token_seconds: float = Field(0.00002, ge=0)


class ModelDef(Strict):
    name: str = "scripted-model"
    wire: Literal["openai-chat", "openai-responses", "anthropic"] = "openai-chat"
    pricing: PricingDef = PricingDef()
    latency: LatencyDef = LatencyDef()
    script: list[StepDef] = Field(default_factory=list)
    cycle: list[StepDef] = Field(default_factory=list)
    reactions: list[ReactionDef] = Field(default_factory=list)
    policy: PolicyDef = PolicyDef()
    seed: int = 0
    allow_unknown_tools: bool = False
    answer_without_tools: Optional[str] = Field(
        None, description="what the model answers when asked to answer without calling tools")

    @model_validator(mode="after")
    def _plan(self) -> "ModelDef":
        if not self.script and not self.cycle:
            raise ValueError("the model needs a 'script' or a 'cycle'")
        return self


# ---------------------------------------------------------------- limits and expectations

class ChecklistItem(Strict):
    """One thing the task needs. With `tool` (and optionally `when`, a subset of its arguments), the
    item counts as done once such a call has succeeded; without, only a final answer does it."""

    item: str
    tool: Optional[str] = None
    when: Optional[dict[str, Any]] = None


class LimitsDef(Strict):
    max_steps: int = Field(8, ge=1, le=10_000)
    max_tokens: Optional[int] = Field(None, ge=1)
    max_seconds: Optional[float] = Field(None, gt=0)
    max_cost_usd: Optional[float] = Field(None, gt=0)


class Bound(Strict):
    min: Optional[float] = None
    max: Optional[float] = None


class ExpectDef(Strict):
    """What a well-designed loop does on this scenario (the lesson-1 loop often does not)."""

    completable: bool
    stop_reason: Union[str, list[str]]
    oracle_model_calls: Optional[int] = Field(None, ge=1)
    model_calls: Optional[Bound] = None
    tool_calls: Optional[Bound] = None
    tokens: Optional[Bound] = None
    seconds: Optional[Bound] = None
    cost_usd: Optional[Bound] = None
    must_call: list[str] = Field(default_factory=list)
    must_not_repeat: list[str] = Field(default_factory=list)
    answer_contains: list[str] = Field(default_factory=list)

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
        if self.model.wire == "anthropic" and self.object_free_arguments():
            raise ValueError(f"{self.object_free_arguments()[0]}: Anthropic always returns tool input as a JSON "
                             "object, so malformed arguments can only be scripted for the OpenAI wire formats")
        for i, entry in enumerate(self.checklist):
            if entry.tool is not None and entry.tool not in names:
                raise ValueError(f"checklist[{i}].tool: {entry.tool!r} is not one of the scenario's tools "
                                 f"({', '.join(names)})")
        for tool in self.expect.must_call + self.expect.must_not_repeat:
            if tool not in names:
                raise ValueError(f"expect: {tool!r} is not one of the scenario's tools ({', '.join(names)})")
        return self

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


# pydantic's names for the branches of a union or a validator, which mean nothing to a scenario author
_NOISE = ("function-", "union[", "list[", "dict[", "literal[", "tagged-union[", "nullable[")
_TYPE_NAMES = ("str", "int", "float", "bool", "none")


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part) in _TYPE_NAMES or str(part).startswith(_NOISE):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _model_at(loc: tuple[Any, ...]) -> Optional[type[BaseModel]]:
    """The scenario class that owns the field at `loc` (to list the fields allowed there)."""
    model: type[BaseModel] = Scenario
    for part in loc:
        if isinstance(part, int) or str(part) in _TYPE_NAMES or str(part).startswith(_NOISE):
            continue
        field = model.model_fields.get(str(part))
        inner = _inner_model(field.annotation) if field is not None else None
        if inner is None:
            return None
        model = inner
    return model


def _inner_model(annotation: Any) -> Optional[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _unknown_field(loc: tuple[Any, ...]) -> str:
    model = _model_at(loc[:-1])
    if model is None:
        return "unknown field (check the spelling against docs/scenarios.md)"
    allowed = [name for name, f in model.model_fields.items() if not f.exclude]
    guess = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
    hint = f"did you mean '{guess[0]}'? " if guess else ""
    return f"unknown field; {hint}allowed here: {', '.join(allowed)}"


def _message(err: Any) -> str:
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "missing":
        return "this field is required"
    if err["type"] == "extra_forbidden":
        return _unknown_field(err["loc"])
    msg = re.sub(r"a valid dictionary( or instance of \w+)?", "a mapping (key: value pairs)", msg)
    if "input" in err and err["type"] != "value_error" and not isinstance(err["input"], dict):
        msg += f" (got {err['input']!r})"
    return msg


def parse_scenario(data: Any, source: str = "<scenario>") -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: expected a mapping at the top level (name, title, user, tools, model, "
                            f"expect), got {type(data).__name__}")
    if isinstance(data.get("checklist"), list):  # plain strings are items without a tool
        data = {**data, "checklist": [{"item": c} if isinstance(c, str) else c for c in data["checklist"]]}
    try:
        return Scenario.model_validate({**data, "source": source})
    except ValidationError as exc:
        problems: dict[str, list[str]] = {}  # one line per field: a union's branches become "X or Y"
        for err in exc.errors():
            where, msg = _where(err["loc"]), _message(err)
            if where == "(top level)" and re.match(r"^[\w.\[\]]+: ", msg):
                where, msg = msg.split(": ", 1)  # a cross-field check names its own field
            problems.setdefault(where, []).append(msg)
        lines = []
        for where, msgs in problems.items():
            alternatives = [m.removeprefix("Input should be ") for m in msgs if m.startswith("Input should be ")]
            if len(alternatives) == len(msgs) > 1:
                got = {m.rpartition(" (got ")[2] for m in alternatives}
                if len(got) == 1 and all(" (got " in m for m in alternatives):
                    alternatives = [m.rpartition(" (got ")[0] for m in alternatives]
                    msgs = ["Input should be " + " or ".join(alternatives) + " (got " + got.pop()]
                else:
                    msgs = ["Input should be " + " or ".join(alternatives)]
            lines += [f"{source}: {where}: {m}" for m in msgs]
        raise ScenarioError("\n".join(lines)) from None


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]  # libyaml: ~10x faster
    """Safe YAML, except that dates and times stay text: tool results are JSON, which has no dates, and an
    unquoted `date: 2026-12-01` must match the string argument a model sends (and `clock:` is a string)."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the file ({exc.strerror})") from None
    return _load_cached(str(path), stamp)


@functools.lru_cache(maxsize=256)
def _load_cached(path_text: str, stamp: int) -> Scenario:
    path = Path(path_text)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ScenarioError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    return parse_scenario(data, str(path))


def catalogue() -> list[Scenario]:
    """Every scenario shipped with the kit, in file-name order."""
    return [load_scenario(p) for p in sorted(CATALOGUE.glob("*.yaml"))]


def find(name_or_path: str) -> Scenario:
    """A catalogue scenario by name, or any scenario file by path."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return load_scenario(path)
    if (CATALOGUE / f"{name_or_path}.yaml").exists():
        return load_scenario(CATALOGUE / f"{name_or_path}.yaml")
    names = ", ".join(s.name for s in catalogue())
    raise ScenarioError(f"no scenario named {name_or_path!r}; the catalogue has: {names}")
