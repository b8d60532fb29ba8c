"""The tools of a scenario file: what each fake tool is offered as and what it answers.

Part of the scenario format (docs/scenarios.md); `schema.py` assembles the whole file.
"""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional

from pydantic import AllowInfNan, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, field_validator, model_validator

from .parameters import check_parameters

# Numbers as JSON has them: no `true` for 1, no "8" for 8, no infinity or NaN (a bound of NaN never fails)
Number = Annotated[StrictFloat, AllowInfNan(False)]
Integer = StrictInt

# Tool results are held in memory for the whole run: a result is at most MAX_RESULT_CHARS characters
MAX_SIZE_CHARS = 1_000_000
MAX_GROW_CHARS = 100_000
MAX_RESULT_CHARS = 1_000_000  # a growing result stops growing here


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResultDef(Strict):
    """What one call of a tool returns: data, or a fault."""

    data: Any = None
    fault: Optional[Literal["timeout", "rate_limit", "server_error", "invalid_argument", "permission_denied",
                            "not_found", "conflict", "precondition_failed", "business_failure", "exception",
                            "connection_reset"]] = None
    message: Optional[str] = None
    retry_after_seconds: Optional[Number] = Field(None, ge=0)
    timeout_seconds: Number = Field(30.0, gt=0)
    error_code: Optional[str] = None
    size_chars: Optional[Integer] = Field(None, gt=0, le=MAX_SIZE_CHARS,
                                          description="huge output: about this many characters")
    grow_chars: Optional[Integer] = Field(None, gt=0, le=MAX_GROW_CHARS,
                                          description="output grows by this many characters per call")


MAX_PATTERN_CHARS = 500


def check_regex(pattern: str, where: str) -> re.Pattern[str]:
    """A scenario's regular expression, compiled, or a clear error (a bad or huge pattern is refused)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"{where}: a pattern is at most {MAX_PATTERN_CHARS} characters, got {len(pattern)}")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{where}: {pattern!r} is not a valid regular expression ({exc})") from None


def _matcher(value: Any) -> Optional[str]:
    """'any_of' or 'regex' when `value` is a matcher ({any_of: [...]} or {regex: "..."}), else None."""
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("any_of", "regex"):
        return next(iter(value))
    return None


def value_matches(wanted: Any, got: Any) -> bool:
    """One argument against its `when` entry: equal, one of `any_of`, or `regex` searched in its text."""
    kind = _matcher(wanted)
    if kind == "any_of":
        return any(got == v for v in wanted["any_of"])
    if kind == "regex":
        return isinstance(got, (str, int, float)) and not isinstance(got, bool) and \
            re.search(wanted["regex"], str(got)) is not None
    return got == wanted


class RuleDef(Strict):
    """`when` (a subset of the arguments; a value may be {any_of: [...]} or {regex: ...}) selects the rule;
    `result` or `results` (the last repeating) says what the tool returns. `advance` says what moves along
    `results`: each call of the rule (`call`), each call with the same arguments (`arguments`), or the
    simulated clock (`time`: result k from second k * `every_seconds` of the run on)."""

    when: Optional[dict[str, Any]] = None
    result: Optional[ResultDef] = None
    results: Optional[list[ResultDef]] = Field(None, min_length=1)
    advance: Literal["call", "arguments", "time"] = "call"
    every_seconds: Optional[Number] = Field(None, gt=0)
    latency_seconds: Optional[Number] = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_result(self) -> "RuleDef":
        if (self.result is None) == (self.results is None):
            raise ValueError("give exactly one of 'result' or 'results'")
        if (self.advance == "time") != (self.every_seconds is not None):
            raise ValueError("'advance: time' needs 'every_seconds' (and 'every_seconds' needs 'advance: time')")
        for name, value in (self.when or {}).items():
            kind = _matcher(value)
            if kind == "any_of" and (not isinstance(value["any_of"], list) or not value["any_of"]):
                raise ValueError(f"when.{name}.any_of: expected a non-empty list of values")
            if kind == "regex":
                if not isinstance(value["regex"], str):
                    raise ValueError(f"when.{name}.regex: expected a regular expression (a string)")
                check_regex(value["regex"], f"when.{name}.regex")
        return self

    def matches(self, args: dict[str, Any]) -> bool:
        return self.when is None or all(k in args and value_matches(v, args[k]) for k, v in self.when.items())


class AnnotationsDef(Strict):
    """MCP tool annotations (modelcontextprotocol.io, "Tool annotations"): hints about how a tool behaves, as a real
    MCP server sends them. Lesson 3's guard reads them, with the spec's defaults (parts/guards/effects.py)."""

    title: Optional[str] = None
    readOnlyHint: Optional[bool] = None
    destructiveHint: Optional[bool] = None
    idempotentHint: Optional[bool] = None
    openWorldHint: Optional[bool] = None


class ToolDef(Strict):
    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    latency_seconds: Number = Field(0.2, ge=0)
    volatile: Optional[bool] = Field(None, description="the kit's explicit override: results change over time (a job "
                                     "status, a queue length), so calling again with the same arguments can be "
                                     "progress (true), or never (false); unset: the guard reads the description "
                                     "and annotations")
    annotations: Optional[AnnotationsDef] = Field(None, description="MCP-style tool annotations (readOnlyHint, ...)")
    metadata: list[str] = Field(default_factory=list, description="result keys (or dotted paths) that change on "
                                "every call whatever the world does (timestamps, request ids): never news")
    alternatives: list[str] = Field(default_factory=list, description="other tools of the scenario that can do "
                                    "this job; lesson 5's executor suggests them when this one fails")
    rules: list[RuleDef] = Field(min_length=1)

    @field_validator("parameters")
    @classmethod
    def _parameters(cls, value: dict[str, Any]) -> dict[str, Any]:
        return check_parameters(value)
