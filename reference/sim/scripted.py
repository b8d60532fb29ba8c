"""A deterministic scripted model that behaves like a real provider where it matters.

In the spirit of the OpenAI Agents SDK's testing model: it plays its steps first in, first out, keeps
a log of every request it received, fails loudly when called after its script has ended, and can
tell you which steps were never used. On top of that, for the lessons:

- every request goes through the protocol check of its wire format (`ProtocolError` with the real
  service's text), exactly as the real API would refuse it (built and checked incrementally: only
  what is new since the last request, reference/wire/incremental.py);
- usage comes from the token estimator over the whole request (messages + tool schemas), so a
  growing context costs what it would cost; latency is charged to the simulated clock;
- it reacts to the conversation as its scenario says: a *cooperative* model changes course when a
  tool result matches a reaction (an intervention, an actionable error); a *stubborn* one has no
  reactions and carries on;
- a `cycle` is played forever after the script: the model that never stops;
- a seeded policy can make it repeat its last tool call with probability p, or (with probability
  `stuck`, drawn once per run) never conclude, for fleet simulations.
"""
from __future__ import annotations

import json
import random
import re
import string
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..core.errors import ProviderError, ProviderTimeout, ScriptExhausted
from . import tokens
from .books import ToolOutputs, call_key
from .clock import SimClock
from ..core.messages import AssistantMessage, Message, ToolCall, ToolMessage, ToolSpec
from ..core.model import Turn, Usage
from ..core.toolresult import read_body
from ..wire.formats import wire_format
from ..wire.incremental import Built, WireBuilder
from .scenario.schema_script import ModelDef, ReactionDef, StepDef


@dataclass
class Request:
    """One request as the model received it. Its history and wire body are views on the model's
    append-only lists, made into lists when read: a run of n steps keeps n records, not n copies."""

    built: Built
    tools: list[ToolSpec]
    tool_choice: str = "auto"

    @property
    def messages(self) -> list[Message]:
        return self.built.history()

    @property
    def wire_body(self) -> dict[str, Any]:
        return self.built.body()


@dataclass
class ScriptedModel:
    spec: ModelDef
    clock: SimClock = field(default_factory=SimClock.at)
    seed: int | None = None
    label: str = "scenario"
    requests: list[Request] = field(default_factory=list)
    outputs: ToolOutputs | None = None  # the run's books of tool outputs (the episode's toolbox fills them)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.spec.seed if self.seed is None else self.seed)
        self._ids = random.Random(f"{self.label}:{self.spec.seed if self.seed is None else self.seed}")
        self.plan: list[StepDef] = [s for s in self.spec.script for _ in range(s.repeat)]
        self.cycle: list[StepDef] = [s for s in self.spec.cycle for _ in range(s.repeat)]
        self.position = 0  # steps taken from `plan`
        self.cycle_position = 0
        self.reactions: list[tuple[int, ReactionDef]] = list(enumerate(self.spec.reactions))  # not yet fired
        self.fired: list[int] = []  # which reactions fired, by index in the scenario
        self.failed: list[StepDef] = []  # the scripted provider failures played so far
        self.last_calls: tuple[ToolCall, ...] = ()
        self._answered = Counter()  # results received per tool and arguments (sim/books.py), over the conversation
        self._call_keys: dict[str, str] = {}  # call id -> tool and arguments, for the calls we made
        self._read = 0  # messages of the conversation counted so far
        self._wire: WireBuilder | None = None  # this conversation's requests, built and checked incrementally
        # drawn once, and only when asked for, so that runs without the policy keep their random sequence
        self.stuck = bool(self.spec.policy.stuck) and self.rng.random() < self.spec.policy.stuck

    # -- the Model interface ------------------------------------------------------------------
    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        if tool_choice not in ("auto", "none"):
            raise ValueError(f"tool_choice must be 'auto' or 'none', got {tool_choice!r}")
        if self._wire is None or self._wire.wire != self.spec.wire:
            self._wire = tokens.counter(self.spec.wire)
        built = self._wire.build(messages, tools)  # only the new messages are converted and checked
        self._wire.check(built)  # raises ProtocolError as the API would
        self.requests.append(Request(built, list(tools), tool_choice))
        self._react(messages)
        if tool_choice == "none" or not tools:
            calls, text, answer, finish = (), None, self._answer_without_tools(messages), "stop"
        else:
            calls, text, answer, finish = self._next_step()
        if finish == "fault":  # the provider failed: nothing billed, the time spent waiting is real
            step = self.failed[-1]
            if step.fault == "timeout":
                self.clock.advance(step.timeout_seconds)
                raise ProviderTimeout(step.retry_after_seconds, step.timeout_seconds)
            self.clock.advance(self.spec.latency.base_seconds)
            raise ProviderError(step.fault, step.retry_after_seconds)
        usage = Usage(tokens.built_tokens(built), tokens.output_tokens(answer if calls == () else text, calls))
        lat = self.spec.latency
        self.clock.advance(lat.base_seconds + lat.per_output_token_seconds * usage.output_tokens
                           + lat.per_input_token_seconds * usage.input_tokens)
        if calls:
            self.last_calls = calls
            return Turn(text, calls, "tool_calls", usage)
        return Turn(answer, (), finish, usage)

    # -- script bookkeeping -------------------------------------------------------------------
    @property
    def unused_steps(self) -> int:
        """Steps of the script never played (a cycle is endless, so it never counts)."""
        return len(self.plan) - self.position

    def assert_script_used(self) -> None:
        if self.unused_steps:
            raise AssertionError(f"{self.label}: {self.unused_steps} scripted step(s) were never requested")

    def _next_step(self) -> tuple[tuple[ToolCall, ...], str | None, str | None, str]:
        if self.last_calls and self.spec.policy.repeat_last_call and self.rng.random() < self.spec.policy.repeat_last_call:
            return tuple(self._fresh(c) for c in self.last_calls), None, None, "tool_calls"
        if (self.stuck and self.last_calls and self.position < len(self.plan)
                and self.plan[self.position].answer is not None):  # the run that never concludes
            return tuple(self._fresh(c) for c in self.last_calls), None, None, "tool_calls"
        if self.position < len(self.plan):
            step = self.plan[self.position]
            self.position += 1
        elif self.cycle:
            step = self.cycle[self.cycle_position % len(self.cycle)]
            self.cycle_position += 1
        else:
            raise ScriptExhausted(
                f"{self.label}: the model was called {len(self.requests)} times but its script has "
                f"{len(self.plan)} step(s) and no cycle")
        if step.fault is not None:
            self.failed.append(step)
            return (), None, None, "fault"
        if step.answer is not None:
            return (), None, step.answer, step.finish_reason or "stop"
        calls = tuple(ToolCall(c.id or self._new_id(), c.tool, self._arguments(c.arguments_text()))
                      for c in step.tool_calls)
        return calls, step.text, None, "tool_calls"

    def _react(self, messages: Sequence[Message]) -> None:
        """Look at the results that answered our previous turn; a matching reaction replaces the plan."""
        results = _latest_results(messages)
        received = self._count_results(messages)
        for index, reaction in list(self.reactions):
            if any(_matches(reaction, r, self._own(r, received)) for r in results):
                self.fired.append(index)
                self.reactions.remove((index, reaction))
                self.plan = [s for s in reaction.then for _ in range(s.repeat)]
                self.position = 0
                self.cycle = [s for s in reaction.cycle for _ in range(s.repeat)]
                self.cycle_position = 0
                self.last_calls = ()
                return

    def _count_results(self, messages: Sequence[Message]) -> dict[str, int]:
        """Which result, counted per tool and arguments, each tool message is (only new messages are read)."""
        if self._read > len(messages):  # another conversation: count it from the start
            self._answered, self._call_keys, self._read = Counter(), {}, 0
        nth: dict[str, int] = {}
        for m in messages[self._read:]:
            if isinstance(m, AssistantMessage):
                self._call_keys.update((c.id, call_key(c.name, c.arguments)) for c in m.tool_calls)
            elif isinstance(m, ToolMessage) and m.call_id in self._call_keys:
                key = self._call_keys[m.call_id]
                self._answered[key] += 1
                nth[m.call_id] = self._answered[key]
        self._read = len(messages)
        return nth

    def _own(self, result: ToolMessage, nth: dict[str, int]) -> bool | None:
        """Is this result the tool's own output (sim/books.py)? None: the model has no books to tell."""
        if self.outputs is None:
            return None
        key = self._call_keys.get(result.call_id)
        return key is not None and self.outputs.is_own_output(key, result.content, nth.get(result.call_id, 1))

    def _answer_without_tools(self, messages: Sequence[Message]) -> str:
        """Asked to answer without tools, the model writes from what the tool results say."""
        if self.spec.answer_without_tools is not None:
            return self.spec.answer_without_tools
        facts = []
        for m in messages:
            if isinstance(m, ToolMessage) and not m.is_error:
                body = read_body(m.content)
                if body is not None and body.get("ok") and body.get("data") not in (None, [], {}):
                    facts.append(json.dumps(body["data"], ensure_ascii=False)[:200])
        if not facts:
            return "I could not find the information needed to answer."
        return "From what I found so far: " + "; ".join(dict.fromkeys(facts))

    # -- ids and arguments in the provider's style ----------------------------------------------
    def _new_id(self) -> str:
        alphabet = string.ascii_letters + string.digits
        fmt = wire_format(self.spec.wire)
        return fmt.call_id_prefix + "".join(self._ids.choice(alphabet) for _ in range(fmt.call_id_chars))

    def _fresh(self, call: ToolCall) -> ToolCall:
        return ToolCall(self._new_id(), call.name, call.arguments)

    def _arguments(self, text: str) -> str:
        if wire_format(self.spec.wire).arguments_are_objects:
            # the service returns `input` as an object; the SDK's text form is json.dumps of it
            try:
                return json.dumps(json.loads(text), ensure_ascii=False)
            except (ValueError, RecursionError):
                return text
        return text


def _latest_results(messages: Sequence[Message]) -> list[ToolMessage]:
    results: list[ToolMessage] = []
    for m in reversed(messages):
        if isinstance(m, ToolMessage):
            results.append(m)
        elif isinstance(m, AssistantMessage):
            break
    return results[::-1]


def _matches(reaction: ReactionDef, result: ToolMessage, own: bool | None) -> bool:
    when = reaction.when
    if when.not_from_tool is not None and (own is None or own == when.not_from_tool):
        return False  # no books (a model without its scenario's tools) tell nothing
    if when.is_error is not None and result.is_error != when.is_error:
        return False
    text = result.content.casefold() if when.ignore_case else result.content
    if when.contains is not None:
        wanted = [when.contains] if isinstance(when.contains, str) else when.contains
        if not any((w.casefold() if when.ignore_case else w) in text for w in wanted):
            return False
    if when.matches is not None and not re.search(when.matches, result.content,
                                                  re.IGNORECASE if when.ignore_case else 0):
        return False
    if when.error_type is not None:
        wanted = [when.error_type] if isinstance(when.error_type, str) else when.error_type
        body = read_body(result.content)
        if body is None or body.get("error_type") not in wanted:
            return False
    return True
