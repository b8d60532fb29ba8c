"""The incremental paths give exactly what the full ones give: bodies, token counts and refusals.

`WireBuilder` (reference/wire/incremental.py) converts, counts and checks only what is new since the
last request. Here every request of random conversations (valid and not, in every wire format, with
histories rewritten mid-run: trimmed, edited, reordered) goes through one builder, and each is
compared with the full `to_request`, `request_tokens` and `check` of the same request from scratch.
"""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import AssistantMessage, ProtocolError, SystemMessage, ToolCall, ToolMessage, UserMessage
from reference.core.messages import ToolSpec
from reference.harness.ledger import Ledger
from reference.core.model import Pricing, Turn, Usage
from reference.sim import tokens
from reference.sim.clock import SimClock
from reference.sim.scenario.schema_tools import RuleDef
from reference.sim.tools import RuleIndex
from reference.wire.protocol import WIRE_FORMATS, check_request, to_wire
from tests.helpers.protocol_cases import INVARIANTS, TOOLS

OTHER_TOOLS = [ToolSpec("search_docs", "Search.", {"type": "object", "properties": {}}), ToolSpec("a b")]


def full(messages: list[Any], tools: list[ToolSpec], wire: str) -> tuple[Any, Any, Any]:
    """Body, tokens and refusal, each from scratch."""
    try:
        body = to_wire(messages, tools, wire)
    except TypeError as err:
        return None, None, ("TypeError", str(err))
    try:
        check_request(messages, tools, wire)
        refusal = None
    except ProtocolError as err:
        refusal = (str(err), err.param, err.code)
    return body, tokens.request_tokens(body), refusal


def incremental(builder: Any, messages: list[Any], tools: list[ToolSpec]) -> tuple[Any, Any, Any]:
    try:
        built = builder.build(messages, tools)
    except TypeError as err:
        return None, None, ("TypeError", str(err))
    try:
        builder.check(built)
        refusal = None
    except ProtocolError as err:
        refusal = (str(err), err.param, err.code)
    return built.body(), tokens.built_tokens(built), refusal


def assert_same_requests(requests: list[tuple[list[Any], list[ToolSpec]]], wire: str) -> None:
    builder = tokens.counter(wire)
    earlier = []
    for n, (messages, tools) in enumerate(requests):
        got, want = incremental(builder, messages, tools), full(messages, tools, wire)
        assert got == want, f"{wire}: request {n} of {len(requests)} differs from the full build and check"
        earlier.append((got[0], messages))
    for body, messages in earlier:  # recorded requests are views: later requests must not change them
        if body is not None:
            assert body == to_wire(messages, builder_tools(requests, messages), wire)


def builder_tools(requests: list[tuple[list[Any], list[ToolSpec]]], messages: list[Any]) -> list[ToolSpec]:
    return next(t for m, t in requests if m is messages)


# ---------------------------------------------------------------- random conversations

IDS = ["call_1", "call_2", "call_3", "call_4"]
calls = st.builds(ToolCall, st.sampled_from(IDS), st.sampled_from(["search_docs", "search_docs", "bad name", ""]),
                  st.sampled_from(['{"query": "x"}', "{}", "[1]", "not json"]))
messages = st.one_of(
    st.builds(SystemMessage, st.sampled_from(["Be brief.", "Système"])),
    st.builds(UserMessage, st.sampled_from(["Hi", "Well?"])),
    st.builds(AssistantMessage, st.sampled_from([None, "", "Let me look."]), st.lists(calls, max_size=3)),
    st.builds(ToolMessage, st.sampled_from(IDS + ["call_9"]), st.sampled_from(["30 days.", '{"ok": true}']),
              st.booleans()),
    st.just("not a message"),
)


@st.composite
def runs(draw: Any) -> list[tuple[list[Any], list[ToolSpec]]]:
    """The requests of one run: a history that grows by a few messages at a time and is sometimes
    rewritten (cut, an old message replaced, a copy with equal messages); the tools change now and then."""
    history: list[Any] = [SystemMessage("You help."), UserMessage("Refund?")]
    requests = []
    for _ in range(draw(st.integers(1, 8))):
        history = history + draw(st.lists(messages, max_size=4))
        rewrite = draw(st.sampled_from(["append"] * 4 + ["cut", "replace", "copy", "same"]))
        if rewrite == "cut" and len(history) > 1:
            history = history[:draw(st.integers(0, len(history) - 1))]
        elif rewrite == "replace" and history:
            history = list(history)
            history[draw(st.integers(0, len(history) - 1))] = draw(messages)
        elif rewrite == "copy":
            history = [type(m)(**{k: getattr(m, k) for k in m.__dataclass_fields__ if k != "role"})
                       if not isinstance(m, str) else m for m in history]
        tools = draw(st.sampled_from([TOOLS, TOOLS, TOOLS, [], OTHER_TOOLS]))
        requests.append((history, tools))
    return requests


@pytest.mark.parametrize("wire", WIRE_FORMATS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=runs())
def test_incremental_build_count_and_check_equal_the_full_ones(wire, requests):
    assert_same_requests(requests, wire)


def valid_run(length: int) -> list[Any]:
    history: list[Any] = [SystemMessage("You help."), UserMessage("Refund?")]
    for n in range(length):
        ids = [f"call_{n}_a", f"call_{n}_b"]
        history.append(AssistantMessage("Looking." if n % 2 else None,
                                        tuple(ToolCall(i, "search_docs", '{"query": "x"}') for i in ids)))
        history += [ToolMessage(i, f"result {n}", is_error=n % 3 == 0) for i in ids]
    return history


@pytest.mark.parametrize("wire", WIRE_FORMATS)
def test_a_long_valid_run_is_built_once_and_checked_once(wire):
    history = valid_run(30)
    requests = [(history[:k], TOOLS) for k in range(5, len(history) + 1, 3)]  # 3 messages a step
    assert_same_requests(requests, wire)
    builder = tokens.counter(wire)
    for messages, tools in requests:
        builder.check(builder.build(messages, tools))
    assert builder.rebuilds == 0, "a history that only grows is never converted again"


@pytest.mark.parametrize("wire", WIRE_FORMATS)
def test_a_result_sent_after_a_request_that_ended_with_results(wire):
    """Anthropic folds it into the user message of the results before: that message is replaced, and
    the earlier request keeps the message it was sent with."""
    history = valid_run(2)
    first, second = history[:-1], history  # the second request adds one more result to the last turn
    assert_same_requests([(first, TOOLS), (second, TOOLS), (first, TOOLS), (second + [UserMessage("?")], TOOLS)],
                         wire)


@pytest.mark.parametrize("wire", WIRE_FORMATS)
@pytest.mark.parametrize("late", [
    [ToolMessage("call_0_a", "again")],  # an id answered in an earlier request, answered again
    [UserMessage("?"), ToolMessage("call_1_b", "late")],
    [AssistantMessage(None, (ToolCall("call_0_b", "search_docs"),)), ToolMessage("call_0_b", "reused")],
    [AssistantMessage("x", (ToolCall("call_9", "search_docs"),)), ToolMessage("call_1_a", "wrong")],
], ids=["answered-again", "late-after-user", "reused-id", "answer-to-older-turn"])
def test_ids_seen_in_earlier_requests_count_as_in_the_full_check(wire, late):
    history = valid_run(3)
    assert_same_requests([(history, TOOLS), (history + late, TOOLS), (history + late[:1], TOOLS)], wire)


@pytest.mark.parametrize("wire", WIRE_FORMATS)
@pytest.mark.parametrize("invariant", sorted(INVARIANTS))
def test_every_refusal_of_the_protocol_tests_is_the_same_request_by_request(invariant, wire):
    conversation, _ = INVARIANTS[invariant]
    assert_same_requests([(conversation[:k], TOOLS) for k in range(1, len(conversation) + 1)], wire)
    assert_same_requests([(conversation[:k], TOOLS) for k in (2, len(conversation))], wire)


# ---------------------------------------------------------------- the ledger's running totals

def test_the_ledger_totals_equal_the_sums_of_its_steps():
    clock = SimClock.at()
    ledger = Ledger(clock, Pricing(1.0, 2.0))
    for n in range(6):
        ledger.record_model(Turn(None, (), "stop", Usage(10 * n, 7 - n)), 0.0)
        ledger.record_tool(f"c{n}", "t" if n % 2 else "u", {}, None, None, 0.0, float(n % 4))
        usage = ledger.usage
        assert (usage.input_tokens, usage.output_tokens) == (sum(s.input_tokens for s in ledger.steps),
                                                             sum(s.output_tokens for s in ledger.steps))
        assert ledger.most_output_tokens(0) == max(s.output_tokens for s in ledger.steps)
        assert ledger.slowest_request == max(s.model_seconds for s in ledger.steps)
        for name in ("t", "u", "v"):
            assert ledger.slowest_tool(name) == max(
                (t.seconds for s in ledger.steps for t in s.tools if t.name == name), default=0.0)
    del ledger.steps[2:]  # changed from outside: summed again
    assert ledger.usage.input_tokens == 10 and ledger.most_output_tokens(0) == 7


# ---------------------------------------------------------------- a tool's rules, found by value

values = st.one_of(st.integers(0, 3), st.sampled_from([1.0, True, False, None, "1", "a", [1], {"a": 1}]))
whens = st.one_of(st.none(), st.dictionaries(st.sampled_from(["page", "q"]), values, max_size=2))


@settings(max_examples=300, deadline=None)
@given(rules=st.lists(whens, min_size=1, max_size=8), args=st.dictionaries(st.sampled_from(["page", "q", "x"]), values))
def test_the_rule_index_finds_the_first_rule_that_matches(rules, args):
    defs = [RuleDef(when=w, result={"data": i}) for i, w in enumerate(rules)]
    first = next((i for i, r in enumerate(defs) if r.matches(args)), None)
    assert RuleIndex(defs).first(args) == first
