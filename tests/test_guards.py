"""Lesson 3's reference guard (reference/parts/guards/): fingerprints, airports, detectors, and the guard on the catalogue."""
from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import Episode, StopReason, ToolCall, ToolMessage, find, parse_scenario
from reference.parts.guards import THRESHOLDS, LoopGuard, canonical, fingerprint, result_fingerprint, thresholds_for
from reference.core import airports
from reference.parts.guards import detectors
from reference.parts.guards.checks import airport_problems
from reference.core.canonical import show
from reference.parts.guards.results import is_empty, leaf_values, news
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.runs.runner import evaluate

TODAY = dt.date(2026, 11, 30)
FLIGHTS = {"type": "object", "properties": {
    "origin": {"type": "string", "format": "iata"}, "destination": {"type": "string", "format": "iata"},
    "date": {"type": "string", "description": "YYYY-MM-DD, or today / tomorrow"}}}


# ---------------------------------------------------------------- fingerprints

def test_fingerprint_sorts_keys_trims_and_applies_nfkc():
    a = fingerprint("t", {"b": " x  y ", "a": "ＡＢＣ"}, {}, TODAY)
    b = fingerprint("t", {"a": "ABC", "b": "x y"}, {}, TODAY)
    assert a == b, f"key order, padding, inner spaces and full-width letters must not matter: {a} vs {b}"


def test_case_is_folded_only_where_the_schema_says_case_insensitive():
    loose = {"properties": {"city": {"type": "string", "description": "City name, case-insensitive"}}}
    strict = {"properties": {"city": {"type": "string", "description": "City name"}}}
    negated = {"properties": {"city": {"type": "string", "description": "not case-insensitive"}}}
    assert canonical({"city": "Shanghai"}, loose) == canonical({"city": "SHANGHAI"}, loose)
    assert canonical({"city": "Shanghai"}, strict) != canonical({"city": "SHANGHAI"}, strict)
    assert canonical({"city": "Shanghai"}, negated) != canonical({"city": "SHANGHAI"}, negated)


def test_numbers_compare_as_numbers_where_the_schema_says_so():
    schema = {"properties": {"page": {"type": "integer"}, "order_id": {"type": "string"}}}
    assert canonical({"page": "2"}, schema) == canonical({"page": 2.0}, schema) == {"page": 2}
    assert canonical({"order_id": 1234}, schema) == canonical({"order_id": "1234"}, schema) == {"order_id": "1234"}
    assert canonical({"order_id": "0123"}, schema) == {"order_id": "0123"}, "a string id keeps its leading zero"
    assert canonical({"page": "two"}, schema) == {"page": "two"}, "not a number: left for the tool to reject"


def test_absent_arguments_count_as_their_default():
    schema = {"properties": {"page": {"type": "integer", "default": 1}, "year": {"type": "integer"}}}
    assert fingerprint("list", {"year": 2026}, schema) == fingerprint("list", {"year": 2026, "page": "1"}, schema)


def test_relative_dates_resolve_against_the_clock_on_date_properties_only():
    assert canonical({"date": "Tomorrow "}, FLIGHTS, TODAY)["date"] == "2026-12-01"
    assert canonical({"date": "yesterday"}, FLIGHTS, TODAY)["date"] == "2026-11-29"
    assert canonical({"date": "today"}, {"properties": {"date": {"format": "date"}}}, TODAY)["date"] == "2026-11-30"
    assert canonical({"q": "today"}, {"properties": {"q": {"type": "string"}}}, TODAY)["q"] == "today"
    assert canonical({"date": "tomorrow"}, FLIGHTS, None)["date"] == "tomorrow", "no clock, no guess"


def test_every_reading_of_a_date_counts_both_orders_of_a_numeric_form():
    from reference.core.dates import readings
    assert readings("05/06", TODAY) == ("2026-05-06", "2026-06-05")  # day and month could swap, its year or not
    assert readings("01/02/2026", TODAY) == ("2026-01-02", "2026-02-01")
    assert readings("5/20", TODAY) == readings("20/05", TODAY) == ("2026-05-20",)
    assert readings("Dec 1, 2026", TODAY) == ("2026-12-01",) and readings("soon", TODAY) == ()


def test_nested_objects_and_arrays_follow_their_schema():
    schema = {"properties": {"legs": {"type": "array", "items": {"type": "object", "properties": {
        "from": {"type": "string", "format": "iata"}, "day": {"type": "integer"}}}}}}
    a = fingerprint("multi", {"legs": [{"from": "pkx", "day": "1"}]}, schema)
    b = fingerprint("multi", {"legs": [{"day": 1, "from": "PEK"}]}, schema)
    assert a == b


def test_show_makes_a_fingerprint_readable():
    fp = fingerprint("search_flights", {"origin": "PEK", "destination": "PVG", "date": "tomorrow"}, FLIGHTS, TODAY)
    assert show(fp) == "search_flights(date=2026-12-01, destination=SHA, origin=BJS)"


_spaces = st.sampled_from(["", " ", "  ", "\t", "\u3000"])  # the last one: an ideographic space (NFKC -> space)


@settings(max_examples=60, deadline=None)
@given(st.permutations(["origin", "destination", "date"]), _spaces, _spaces,
       st.sampled_from(["PEK", "pek", "PKX", "bjs", "ＰＥＫ"]), st.sampled_from(["SHA", "pvg", "Sha"]),
       st.sampled_from(["tomorrow", "2026-12-01", "TOMORROW"]))
def test_every_disguise_of_one_search_has_one_fingerprint(order, left, right, origin, destination, date):
    values = {"origin": left + origin + right, "destination": destination + right, "date": left + date}
    args = {k: values[k] for k in order}
    assert fingerprint("search_flights", args, FLIGHTS, TODAY) == \
        'search_flights {"date":"2026-12-01","destination":"SHA","origin":"BJS"}'


# ---------------------------------------------------------------- airports

@pytest.mark.parametrize("code, metro", [("PEK", "BJS"), ("PKX", "BJS"), ("BJS", "BJS"), ("pkx ", "BJS"),
                                         ("SHA", "SHA"), ("PVG", "SHA"), ("BJX", "BJX"), ("CAN", "CAN")])
def test_airport_codes_map_to_the_iata_metropolitan_area(code, metro):
    assert airports.metro(code) == metro


def test_bjx_is_del_bajio_in_mexico_not_beijing():
    problem = airports.request_problem("BJX", "I need to get from Beijing to Shanghai on 2026-12-01.", ["SHA"])
    assert problem is not None, "BJX for a Beijing trip must be an error, not a silent guess"
    message, options = problem
    assert message.startswith("BJX is Del Bajio International Airport (Silao, Guanajuato, MX), not Beijing")
    assert "BJS (PEK, PKX)" in message and options == ["BJS"]


def test_a_code_the_user_wrote_or_that_fits_the_request_is_accepted():
    assert airports.request_problem("BJX", "Fly me from BJX to Shanghai") is None
    assert airports.request_problem("PKX", "From Beijing to Shanghai", ["SHA"]) is None
    assert airports.request_problem("CAN", "What is the weather like?") is None, "no place named: nothing to compare"


def test_unknown_codes_and_place_names_are_actionable_errors():
    with pytest.raises(airports.AirportCodeError, match="not an IATA airport or metropolitan-area code"):
        airports.metro("QQQ")
    with pytest.raises(airports.AirportCodeError, match=r"place name, not an IATA code: use BJS \(PEK, PKX\)"):
        airports.metro("Beijing")
    with pytest.raises(airports.AirportCodeError, match="ask the user which one they mean") as info:
        airports.metro("Portland")  # Oregon and Maine: ambiguous, so no pick
    assert {"PDX", "PWM"} <= set(info.value.suggestions)


def test_airport_problems_reads_the_schema_format():
    args = {"origin": "BJX", "destination": "SHA", "date": "2026-12-01"}
    problems = airport_problems(args, FLIGHTS, "From Beijing to Shanghai")
    assert [(p.argument, p.suggestions) for p in problems] == [("origin", ("BJS",))]
    plain = {"properties": {"origin": {"type": "string"}}}
    assert airport_problems({"origin": "BJX"}, plain, "From Beijing") == [], "no format: iata, no airport check"


# ---------------------------------------------------------------- results

def test_result_fingerprints_and_values():
    a = json.dumps({"ok": True, "data": {"b": [1, 2], "a": "x  y"}})
    b = json.dumps({"data": {"a": "x y", "b": [1.0, 2]}, "ok": True})
    assert result_fingerprint(a) == result_fingerprint(b)
    assert result_fingerprint(a) != result_fingerprint(json.dumps({"ok": False, "error_type": "x", "message": "y"}))
    assert is_empty({"results": []}) and is_empty(None) and not is_empty({"n": 0})
    assert leaf_values({"ok": True, "items": [{"id": "O-1"}]}) == {"ok=True", '"O-1"'}
    seen = {'"O-1"'}
    assert news(json.dumps({"ok": True, "data": {"id": "O-1"}}), False, seen) == set()
    assert news(json.dumps({"ok": True, "data": {"id": "O-2"}}), False, seen) == {'"O-2"'}
    assert news(json.dumps({"ok": False, "error_type": "e", "message": "O-3"}), True, seen) == set()


# ---------------------------------------------------------------- detectors

def test_repeated_call_counts_the_whole_history_not_only_the_last_call():
    assert detectors.repeated_call(["A", "B"], "A") == 1
    assert detectors.repeated_call(["A", "B"], "C") is None
    assert detectors.repeated_call(["A"], "A", allowed_runs=2) is None
    assert detectors.repeated_call(["A", "B", "A"], "A", allowed_runs=2) == 2


@pytest.mark.parametrize("history, action, expected", [
    (["A", "B", "A"], "B", ("A", "B")), (["X", "A", "B", "A"], "B", ("A", "B")),
    (["A", "B", "A"], "C", None), (["A", "A", "A"], "A", None), (["A", "B"], "A", None),
    (["A", "B", "C"], "B", None)])
def test_alternation_sees_a_b_a_b(history, action, expected):
    assert detectors.alternation(history, action) == expected


def test_same_result_and_no_progress_thresholds():
    assert detectors.same_result({"r": ["a", "b"]}, "r", 2) == ["a", "b"]
    assert detectors.same_result({"r": ["a", "a"]}, "r", 2) is None, "one action twice is a repeat, not same-result"
    assert detectors.no_progress([3, 0, 0], 2) == 2
    assert detectors.no_progress([0, 3, 0], 2) is None
    assert detectors.no_progress([], 1) is None


def test_echo_measures_the_models_own_words():
    assert detectors.echo(["Let me double-check the status.", None, "Let me double-check the status."]) == 1.0
    assert detectors.echo(["Searching flights.", "Here are your options."]) is None
    assert 0.0 <= detectors.similarity("abc", "abd") <= 1.0


# ---------------------------------------------------------------- the guard

def test_thresholds_per_intent():
    assert thresholds_for("troubleshoot").allowed_runs == 2
    assert thresholds_for("no-such-intent") == THRESHOLDS["general"]
    ep = Episode.from_scenario(find("alternation-cooperative"))
    assert LoopGuard.for_episode(ep).thresholds == THRESHOLDS["troubleshoot"]


def _one_tool_scenario(cycle: list[dict], **tool) -> Episode:
    scenario = parse_scenario({
        "name": "guard-unit", "title": "unit", "user": "Where is my order A1234?",
        "tools": [{"name": "lookup", "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
                   "rules": [{"result": {"data": {"status": "in transit"}}}], **tool}],
        "model": {"cycle": cycle}, "expect": {"completable": False, "stop_reason": "repeated_call"}})
    return Episode.from_scenario(scenario)


def test_malformed_arguments_do_not_crash_the_guard_and_still_count_as_repeats():
    ep = _one_tool_scenario([{"call": {"tool": "lookup", "raw_args": '{"id": "A1234"'}}])
    guard = LoopGuard.for_episode(ep)
    result = guarded_loop(ep, 6, Parts(guard=guard))
    assert result.stop_reason is StopReason.REPEATED_CALL and result.model_calls == 3, result.summary()


def test_an_unknown_tool_is_left_to_the_executor():
    ep = _one_tool_scenario([{"call": {"tool": "lookup", "args": {"id": "A1"}}}])
    guard = LoopGuard.for_episode(ep)
    verdict = guard.before_call(ep, ToolCall("c1", "nope", '{"id": "A1"}'),
                                [*ep.initial_messages(), _assistant("c1", "nope")])
    assert verdict.action == "run"


def _assistant(call_id: str, name: str):
    from reference import AssistantMessage
    return AssistantMessage(None, (ToolCall(call_id, name, '{"id": "A1"}'),))


@pytest.mark.parametrize("volatile", [True, False])
def test_a_new_answer_is_a_new_turn_even_with_the_same_call_ids(volatile):
    """A turn is one assistant message: a faulty model's second answer that reuses the first one's call id is a
    new turn, step 2, not a second call of step 1's message. A read asked again there runs once more, whatever its
    definition says of its volatility, and is judged by its answer (here it moved). (Two steps only: a third
    request would be refused for the reused id.)"""
    call = {"call": {"tool": "job_status", "args": {"job": "j1"}, "id": "call_1"}}
    ep = Episode.from_scenario(parse_scenario({
        "name": "again-same-id", "title": "unit", "user": "Is job j1 done yet?",
        "tools": [{"name": "job_status", "description": "The status of a job.", "volatile": volatile,
                   "parameters": {"type": "object", "properties": {"job": {"type": "string"}}},
                   "rules": [{"results": [{"data": {"status": s}} for s in ("running", "done")]}]}],
        "model": {"script": [call, call, {"answer": "Done."}]},
        "expect": {"completable": True, "stop_reason": "completed"}}))
    guard = LoopGuard.for_episode(ep)
    result = guarded_loop(ep, 2, Parts(guard=guard))
    results = [json.loads(m.content) for m in result.messages if isinstance(m, ToolMessage)]
    assert [r.get("data") for r in results] == [{"status": "running"}, {"status": "done"}], results
    assert not guard.events, guard.events
    assert [a.step for a in guard.attempts] == [1, 2], "the second answer's call belongs to step 2"


def test_the_stop_keeps_the_real_result_for_a_degraded_answer():
    ep = Episode.from_scenario(find("same-result-stubborn"))
    result = guarded_loop(ep, ep.limits.max_steps, Parts(guard=LoopGuard.for_episode(ep)))
    last = [m for m in result.messages if isinstance(m, ToolMessage)][-1]
    assert result.stop_reason is StopReason.SAME_RESULT
    assert json.loads(last.content)["ok"] is True, "the stopping step's result stays as the tool gave it"
    assert result.detail and "search_docs" in result.detail, result.detail


def test_events_tell_what_the_guard_did():
    ep = Episode.from_scenario(find("repeat-exact"))
    guard = LoopGuard.for_episode(ep)
    guarded_loop(ep, ep.limits.max_steps, Parts(guard=guard))
    # the second identical read runs (its answer might have moved) and its same answer is replaced by the
    # warning; the third is answered before it runs, and stops the run
    assert [(e["step"], e["pattern"], e["did"]) for e in guard.events] == [
        (2, "repeated_call", "wrapped the result"), (3, "repeated_call", "stopped the run")]


# ---------------------------------------------------------------- the catalogue, guard only

LESSON_3 = ["repeat-exact", "repeat-exact-cooperative", "repeat-noisy", "repeat-noisy-stubborn", "airport-drift",
            "airport-drift-stubborn", "airport-unknown-code", "airport-unknown-code-stubborn", "alternation",
            "alternation-cooperative", "same-result", "same-result-stubborn", "empty-rephrase",
            "empty-rephrase-cooperative", "metric-trend", "paging-legit", "polling-legit", "polling-stuck",
            "new-arguments-legit", "happy-path"]


@pytest.mark.parametrize("name", LESSON_3)
def test_the_guard_alone_meets_each_lesson_3_scenario(name):
    scenario = find(name)
    ep = Episode.from_scenario(scenario)
    result = guarded_loop(ep, ep.limits.max_steps, Parts(guard=LoopGuard.for_episode(ep)))
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed, f"scenario `{name}` with the loop guard: {'; '.join(failed)}"
    if scenario.expect.completable:
        oracle = scenario.expect.oracle_model_calls
        assert result.model_calls <= 1.25 * oracle, \
            f"scenario `{name}`: {result.model_calls} model calls, oracle {oracle} (bound {1.25 * oracle:g})"
