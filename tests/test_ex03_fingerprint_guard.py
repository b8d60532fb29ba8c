"""Exercise 3: fingerprint guards. Run against solutions/ by default; `--target exercises` for yours.

Every scenario test runs the guarded loop with your guard and nothing else:
`guarded_loop(episode, max_steps, Parts(guard=make_guard(episode)))`.
"""
from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from reference import ProtocolError, Scenario, StopReason, ToolMessage, find, parse_scenario
from reference.sandbox.grading import run_candidate
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from tests.helpers.targets import load_exercise

TODAY = dt.date(2026, 11, 30)  # the scenarios' clock
FLIGHTS = find("repeat-noisy").tools[0].parameters  # origin/destination: format iata; date: YYYY-MM-DD or tomorrow


@pytest.fixture
def ex(target):
    return load_exercise(target, "ex03_fingerprint_guard")


def run(ex, name, wire: str | None = None, sandbox=True):
    """The scenario under the guarded loop with the candidate's guard; a crash is a failure with its story."""
    def loop(episode, max_steps):
        return guarded_loop(episode, max_steps, Parts(guard=ex.make_guard(episode)))

    attempt = run_candidate(loop, name, wire=wire, sandbox=sandbox)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    return attempt.result


def feedback(result) -> list[dict]:
    """The loop_detected messages the model received, parsed."""
    out = []
    for m in result.messages:
        if isinstance(m, ToolMessage):
            try:
                body = json.loads(m.content)
            except ValueError:
                continue
            if isinstance(body, dict) and body.get("error_type") == "loop_detected":
                out.append(body)
    return out


def executed(result, tool: str) -> int:
    return sum(1 for s in result.steps for t in s.tools if t.name == tool)


# ---------------------------------------------------------------- inline scenarios (not in the catalogue)

def _search(name: str, description: str) -> dict:
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}


def _service_tool(name: str, description: str, rule: dict) -> dict:
    return {"name": name, "description": description, "rules": [rule],
            "parameters": {"type": "object", "properties": {"service": {"type": "string"}}, "required": ["service"]}}


CHECKOUT = {"service": "checkout"}

# Troubleshooting: check, restart, check again. A second identical call that the troubleshoot tier allows.
RECHECK = parse_scenario({
    "name": "recheck-after-restart", "title": "Check, restart, check again", "intent": "troubleshoot",
    "user": "Checkout is failing: find out why and fix it.",
    "tools": [
        _service_tool("check_health", "Health of a service.",
                      {"results": [{"data": {"service": "checkout", "status": "degraded",
                                             "error": "connection pool exhausted"}},
                                   {"data": {"service": "checkout", "status": "healthy"}}]}),
        _service_tool("restart_service", "Restart a service.",
                      {"result": {"data": {"service": "checkout", "restarted": True}}})],
    "model": {"script": [{"call": {"tool": "check_health", "args": CHECKOUT}},
                         {"call": {"tool": "restart_service", "args": CHECKOUT}},
                         {"call": {"tool": "check_health", "args": CHECKOUT}},
                         {"answer": "Checkout's connection pool was exhausted; after a restart it is healthy."}]},
    "expect": {"completable": True, "stop_reason": "completed", "oracle_model_calls": 4},
}, source="tests/test_ex03_fingerprint_guard.py:RECHECK")

# Empty, found, empty: never two quiet steps in a row.
PROGRESS_BETWEEN_QUIET_STEPS = parse_scenario({
    "name": "progress-between-quiet-steps", "title": "Empty, found, empty",
    "user": "How do I rotate API keys, on-premise and in the cloud edition?",
    "tools": [{**_search("search_kb", "Search the product knowledge base."), "rules": [
        {"when": {"query": "rotate API keys on-premise"},
         "result": {"data": {"results": [{"doc_id": "kb-12", "title": "Rotating keys on-premise"}]}}},
        {"when": {"query": "cloud API key rotation"},
         "result": {"data": {"results": [{"doc_id": "kb-31", "title": "Cloud console: API keys"}]}}},
        {"result": {"data": {"results": []}}}]}],
    "model": {"script": [{"call": {"tool": "search_kb", "args": {"query": q}}}
                         for q in ("rotate API keys on-premise", "key rotation cloud console", "cloud API key rotation",
                                   "key rotation audit log")]
              + [{"answer": "On-premise: see kb-12; in the cloud edition: kb-31 (Cloud console, API keys)."}]},
    "expect": {"completable": True, "stop_reason": "completed", "oracle_model_calls": 5},
}, source="tests/test_ex03_fingerprint_guard.py:PROGRESS_BETWEEN_QUIET_STEPS")

# A stubborn model: warned for an exact repeat, it rephrases a search that keeps returning the same document.
REPEAT_THEN_SAME_RESULT = parse_scenario({
    "name": "repeat-then-same-result", "title": "A repeat, then the same result",
    "user": "What is your refund policy for items that arrive damaged?",
    "tools": [{**_search("search_docs", "Full-text search over the help centre."), "rules": [
        {"result": {"data": {"results": [{"doc_id": "policy-7", "title": "General returns policy"}]}}}]}],
    "model": {"script": [{"call": {"tool": "search_docs", "args": {"query": "refund policy damaged items"}}}] * 2,
              "cycle": [{"call": {"tool": "search_docs", "args": {"query": q}}}
                        for q in ("damaged item refund", "broken on arrival return")]},
    "expect": {"completable": False, "stop_reason": "same_result", "model_calls": {"max": 3}},
}, source="tests/test_ex03_fingerprint_guard.py:REPEAT_THEN_SAME_RESULT")

# repeat-noisy-stubborn on a clock years away from the machine's date ("tomorrow" is 2031-03-15 there).
FAR_CLOCK = parse_scenario({
    **json.loads(json.dumps(find("repeat-noisy-stubborn").model_dump(mode="json")).replace("2026-12-01", "2031-03-15")),
    "clock": "2031-03-14T09:00:00+08:00",
}, source="tests/test_ex03_fingerprint_guard.py:FAR_CLOCK")


# ---------------------------------------------------------------- fingerprints

def test_noisy_repeats_share_one_fingerprint(ex):
    spellings = [
        {"origin": "PEK", "destination": "SHA", "date": "tomorrow"},
        {"destination": "SHA", "origin": "PEK", "date": "2026-12-01"},
        {"origin": " pek ", "destination": "sha", "date": "tomorrow"},
        {"date": "2026-12-01", "origin": "ＰＥＫ", "destination": "SHA "},  # full-width letters (NFKC)
    ]
    prints = {ex.fingerprint("search_flights", args, FLIGHTS, TODAY) for args in spellings}
    assert len(prints) == 1, ("one flight search written four ways (key order, spaces, case, full-width "
                              f"letters, 'tomorrow' on 2026-11-30) must give one fingerprint, got {len(prints)}: "
                              f"{sorted(prints)}")


def test_airport_codes_map_to_their_metropolitan_area(ex):
    def fp(origin, destination):
        return ex.fingerprint("search_flights", {"origin": origin, "destination": destination, "date": "2026-12-01"},
                              FLIGHTS, TODAY)

    beijing = {fp(code, "SHA") for code in ("PEK", "PKX", "BJS")}
    assert len(beijing) == 1, f"PEK, PKX and BJS are all Beijing (IATA metro BJS), got {len(beijing)} fingerprints"
    shanghai = {fp("PEK", code) for code in ("SHA", "PVG")}
    assert len(shanghai) == 1, f"SHA and PVG are both Shanghai (IATA metro SHA), got {len(shanghai)} fingerprints"
    assert fp("PEK", "SHA") != fp("PEK", "CAN"), "Beijing-Shanghai and Beijing-Guangzhou are different searches"
    assert fp("BJX", "SHA") != fp("PEK", "SHA"), "BJX is Del Bajio (Silao, Mexico), not Beijing: never a guess"


def test_genuinely_different_arguments_keep_different_fingerprints(ex):
    orders = find("paging-legit").tools[0].parameters  # year, page: integers
    pages = {ex.fingerprint("list_orders", {"year": 2026, "page": p}, orders, TODAY) for p in (1, 2, 3)}
    assert len(pages) == 3, "pages 1, 2 and 3 are three different calls"
    same_page = {ex.fingerprint("list_orders", {"year": y, "page": p}, orders, TODAY)
                 for y, p in ((2026, 2), ("2026", "2"), (2026.0, 2.0))}
    assert len(same_page) == 1, "the schema says integer: 2, 2.0 and \"2\" are the same page"
    status = find("repeat-exact").tools[0].parameters  # order_id: a plain string, nothing says case-insensitive
    ids = {ex.fingerprint("get_order_status", {"order_id": oid}, status, TODAY) for oid in ("A1234", "a1234")}
    assert len(ids) == 2, ("order_id is not marked case-insensitive: A1234 and a1234 may be different orders, "
                           "so case-folding it merges calls that are really different")
    query = {"type": "object", "properties": {"query": {"type": "string"}}}
    today = {ex.fingerprint("search_kb", {"query": q}, query, TODAY) for q in ("today", "2026-11-30")}
    assert len(today) == 2, "'today' in a search query is a word, not a date: only date properties are resolved"


def test_result_fingerprint_ignores_formatting_only(ex):
    a = '{"ok": true, "data": {"results": [{"doc_id": "policy-7", "title": "General returns policy"}]}}'
    b = '{"data": {"results": [{"title": "General  returns policy", "doc_id": "policy-7"}]}, "ok": true}'
    c = '{"ok": true, "data": {"results": [{"doc_id": "policy-8", "title": "Damaged items"}]}}'
    assert ex.result_fingerprint(a) == ex.result_fingerprint(b), "key order and spacing do not change a result"
    assert ex.result_fingerprint(a) != ex.result_fingerprint(c), "a different document is a different result"


# ---------------------------------------------------------------- detectors on the scenarios

def test_exact_repeat_is_stopped_after_one_intervention(ex):
    result = run(ex, "repeat-exact")
    assert result.stop_reason is StopReason.REPEATED_CALL, \
        (f"scenario `repeat-exact`: stop reason {result.stop_reason.value} after {result.model_calls} model calls; "
         "a model that repeats the same call after being told must be stopped for repeated_call")
    assert result.model_calls <= 4, \
        f"scenario `repeat-exact`: {result.model_calls} model calls; the bound is 4 (one intervention, then stop)"
    assert feedback(result), "scenario `repeat-exact`: the run stopped without ever telling the model (intervene first)"
    assert executed(result, "get_order_status") == 1, \
        f"scenario `repeat-exact`: get_order_status ran {executed(result, 'get_order_status')} times; repeats must not run"


@pytest.mark.parametrize("name", ["repeat-exact-cooperative", "repeat-noisy", "airport-drift", "same-result",
                                  "metric-trend", "alternation-cooperative", "empty-rephrase-cooperative"])
def test_cooperative_model_completes_after_one_intervention(ex, name):
    result = run(ex, name)
    oracle = find(name).expect.oracle_model_calls
    notes = feedback(result)
    assert result.stop_reason is StopReason.COMPLETED, \
        (f"scenario `{name}`: stop reason {result.stop_reason.value} after {len(notes)} intervention(s); this "
         "model answers once it is told it is looping, so the guard must intervene first and stop only if it "
         "persists (a guard that stops at the first detection without intervening fails this)")
    assert len(notes) == 1, f"scenario `{name}`: {len(notes)} interventions; one is enough for this model"
    assert result.model_calls <= oracle * 1.25, \
        f"scenario `{name}`: {result.model_calls} model calls; the oracle needs {oracle} (bound {oracle * 1.25:g})"
    assert find(name).expect.answer_contains[0].lower() in (result.answer or "").lower(), \
        f"scenario `{name}`: the answer should be the model's final text, got {result.answer!r}"


def test_interventions_carry_evidence_options_and_an_instruction(ex):
    result = run(ex, "repeat-exact-cooperative")
    notes = feedback(result)
    assert notes, "scenario `repeat-exact-cooperative`: no loop_detected message reached the model"
    note = notes[0]
    missing = [k for k in ("ok", "error_type", "pattern", "evidence", "options", "instruction") if k not in note]
    assert not missing, f"scenario `repeat-exact-cooperative`: the intervention lacks {missing}: {note}"
    assert note["ok"] is False and note["pattern"] == "repeated_call", f"wrong pattern or ok flag: {note}"
    assert isinstance(note["options"], list) and len(note["options"]) >= 2, \
        f"give the model options (another tool, another argument, answer with what you have): {note['options']}"
    counted = re.search(r"\b(2|2nd|twice|two|second)\b", note["evidence"].replace("A1234", ""), re.IGNORECASE)
    assert counted, \
        f"the evidence should say how many times the call came (this is its second time): {note['evidence']!r}"


def test_noisy_repeats_are_caught(ex):
    result = run(ex, "repeat-noisy-stubborn")
    assert result.stop_reason is StopReason.REPEATED_CALL and result.model_calls <= 4, \
        (f"scenario `repeat-noisy-stubborn`: stop reason {result.stop_reason.value} after {result.model_calls} "
         "model calls; the same search written differently (key order, spaces, case, 'tomorrow') is still the "
         "same search, and must be stopped as a repeat within 4 calls")
    assert executed(result, "search_flights") == 1, \
        f"scenario `repeat-noisy-stubborn`: the search ran {executed(result, 'search_flights')} times; repeats must not run"


def test_airport_drift_is_caught(ex):
    result = run(ex, "airport-drift-stubborn")
    assert result.stop_reason is StopReason.REPEATED_CALL and result.model_calls <= 4, \
        (f"scenario `airport-drift-stubborn`: stop reason {result.stop_reason.value} after {result.model_calls} "
         "model calls; PEK, PKX and BJS are one Beijing, SHA and PVG one Shanghai: the drifting codes are one "
         "search repeated")


def test_wrong_airport_code_gets_an_actionable_error(ex):
    result = run(ex, "airport-unknown-code")
    assert result.stop_reason is StopReason.COMPLETED and result.model_calls <= 3, \
        (f"scenario `airport-unknown-code`: stop reason {result.stop_reason.value} after {result.model_calls} model "
         "calls; BJX is in Mexico: answer the call with an invalid_argument error naming BJS, and do not run it")
    ran = [t.arguments.get("origin") for s in result.steps for t in s.tools]
    assert "BJX" not in ran, f"scenario `airport-unknown-code`: the search ran with BJX ({ran}); never a silent guess"


def test_alternation_is_stopped(ex):
    result = run(ex, "alternation")
    assert result.stop_reason in (StopReason.ALTERNATION, StopReason.REPEATED_CALL) and result.model_calls <= 6, \
        (f"scenario `alternation`: stop reason {result.stop_reason.value} after {result.model_calls} model calls; "
         "A-B-A-B never repeats a call back to back, so a detector that only compares with the previous call "
         "misses it. Stop it within 6 calls")


def test_alternation_is_stopped_as_alternation_when_repeats_are_allowed(ex):
    # The troubleshoot tier allows a second run of the same call, so A-B-A is not a repeat yet: only the
    # alternation detector sees the loop at the fourth call.
    scenario = find("alternation").model_copy(update={"name": "alternation-troubleshoot", "intent": "troubleshoot"})
    result = run(ex, scenario)
    assert result.stop_reason is StopReason.ALTERNATION and result.model_calls <= 5, \
        (f"scenario `alternation` with intent troubleshoot (allowed_runs 2): stop reason {result.stop_reason.value} "
         f"after {result.model_calls} model calls. A second run of a call is allowed here, so A-B-A is no repeat "
         "yet; the pattern is the pair: A-B-A-B must be seen as an alternation (intervene at the fourth call, stop "
         "at the fifth)")


def test_intent_thresholds_allow_a_troubleshooting_recheck(ex):
    result = run(ex, RECHECK)
    notes = feedback(result)
    assert not notes, \
        (f"inline scenario `recheck-after-restart` (intent troubleshoot): the second health check after the restart "
         f"was flagged as a loop: {notes[0]['evidence']!r}. The troubleshoot tier allows a call to run twice "
         "(THRESHOLDS['troubleshoot']['allowed_runs'] == 2): use the thresholds of the scenario's intent")
    assert result.stop_reason is StopReason.COMPLETED and result.model_calls == 4, \
        (f"inline scenario `recheck-after-restart`: stop reason {result.stop_reason.value} after {result.model_calls} "
         "model calls; check, restart, check again and answer is 4")


def test_progress_resets_the_no_progress_count(ex):
    result = run(ex, PROGRESS_BETWEEN_QUIET_STEPS)
    notes = feedback(result)
    assert not notes, \
        (f"inline scenario `progress-between-quiet-steps`: flagged {notes[0]['pattern']} ({notes[0]['evidence']!r}) "
         "although no two quiet steps came in a row: empty, found kb-31, empty. No progress means "
         "`no_progress_steps` steps in a row with nothing new; a step that brings something new starts the count "
         "again")
    assert result.stop_reason is StopReason.COMPLETED and result.model_calls == 5, \
        (f"inline scenario `progress-between-quiet-steps`: stop reason {result.stop_reason.value} after "
         f"{result.model_calls} model calls; four searches and an answer is 5")


def test_second_loop_of_another_kind_stops_the_run(ex):
    result = run(ex, REPEAT_THEN_SAME_RESULT)
    notes = feedback(result)
    assert result.stop_reason is StopReason.SAME_RESULT and result.model_calls == 3, \
        (f"inline scenario `repeat-then-same-result`: stop reason {result.stop_reason.value} after "
         f"{result.model_calls} model calls and {len(notes)} warning(s) ({', '.join(n['pattern'] for n in notes)}). "
         "The model was warned for repeating its search, then looped another way (a rephrased query with the same "
         "result): it has had its warning. The warnings are counted per run, not one per pattern: the second "
         "detection of any kind stops the run")
    assert len(notes) == 1, f"inline scenario `repeat-then-same-result`: {len(notes)} warnings, one expected"


def test_relative_dates_resolve_on_the_scenario_clock(ex):
    result = run(ex, FAR_CLOCK)
    assert result.stop_reason is StopReason.REPEATED_CALL and executed(result, "search_flights") == 1, \
        (f"scenario `repeat-noisy-stubborn` moved to 2031-03-14 (clock {FAR_CLOCK.clock}): stop reason "
         f"{result.stop_reason.value}, the search ran {executed(result, 'search_flights')} times. 'tomorrow' is "
         "2031-03-15 on the scenario's clock (`episode.clock.today()`), whatever the machine's date: a guard that "
         "reads the wall clock sees 'tomorrow' and '2031-03-15' as two searches")


def test_same_result_is_stopped(ex):
    result = run(ex, "same-result-stubborn")
    assert result.stop_reason is StopReason.SAME_RESULT and result.model_calls <= 4, \
        (f"scenario `same-result-stubborn`: stop reason {result.stop_reason.value} after {result.model_calls} model "
         "calls; different queries that keep returning the same result are a loop the action fingerprint cannot "
         "see: fingerprint the results too")


def test_empty_results_with_rephrasing_stop_for_no_progress(ex):
    result = run(ex, "empty-rephrase")
    assert result.stop_reason is StopReason.NO_PROGRESS and result.model_calls <= 5, \
        (f"scenario `empty-rephrase`: stop reason {result.stop_reason.value} after {result.model_calls} model calls; "
         "every search is new but every result is empty: empty results count as nothing new, so this is no "
         "progress, to be stopped within 5 calls")


def test_stuck_polling_stops_for_no_progress(ex):
    result = run(ex, "polling-stuck")
    assert result.stop_reason is StopReason.NO_PROGRESS and result.model_calls <= 6, \
        (f"scenario `polling-stuck`: stop reason {result.stop_reason.value} after {result.model_calls} model calls; "
         "polling a volatile tool is allowed, but a status that never changes brings nothing new")


# ---------------------------------------------------------------- legitimate repetition

def _not_flagged(ex, name: str, what: str) -> None:
    result = run(ex, name)
    notes = feedback(result)
    oracle = find(name).expect.oracle_model_calls
    assert not notes, f"scenario `{name}`: {what} was flagged as a loop: {notes[0]['evidence']!r}"
    assert result.stop_reason is StopReason.COMPLETED and result.model_calls == oracle, \
        (f"scenario `{name}`: stop reason {result.stop_reason.value} after {result.model_calls} model calls; "
         f"{what} should complete in {oracle}")


def test_paging_is_not_flagged(ex):
    _not_flagged(ex, "paging-legit", "paging (the same tool, a new page each time, new orders on every page)")


def test_polling_is_not_flagged(ex):
    _not_flagged(ex, "polling-legit", "polling a volatile tool whose result changes (running 40%, 80%, done)")


def test_new_arguments_are_not_flagged(ex):
    _not_flagged(ex, "new-arguments-legit", "the same tool with genuinely new arguments (three cities)")
    _not_flagged(ex, "happy-path", "two different tools in one turn")


def test_batch_lookups_that_share_a_state_are_not_flagged(ex):
    _not_flagged(ex, "identity-batch-legit", "four different SKUs that are all `in_stock: true` (a batch lookup, "
                 "not a rephrased search: the SKU names the thing asked about, so group same-result by the call's "
                 "identity arguments, and count an answer about a new thing as news)")


def test_polling_without_a_volatile_flag_is_not_flagged(ex):
    _not_flagged(ex, "polling-annotated-legit", "polling a build whose tool has no `volatile` flag but MCP "
                 "annotations (readOnlyHint, openWorldHint): read the tool definition (`self.tools[name].polls`)")


# ---------------------------------------------------------------- dates, turns, metadata

def test_dates_in_any_unambiguous_spelling_are_one_date(ex):
    schema = {"type": "string", "format": "date"}
    for spelling in ("2026-12-01", "Dec 1, 2026", "1 December 2026", "tomorrow", "Tuesday"):
        assert ex.canonical(spelling, schema, TODAY) == "2026-12-01", \
            (f"canonical({spelling!r}) on {TODAY} (a Monday) is {ex.canonical(spelling, schema, TODAY)!r}; every "
             "unambiguous spelling of 1 December is one date (use `canonical_date`; a weekday is the next one)")
    ambiguous = ex.canonical("01/02/2026", schema, TODAY)
    assert ambiguous not in ("2026-02-01", "2026-01-02"), \
        f"01/02/2026 reads as 1 February or 2 January: it must never be merged with either, got {ambiguous!r}"


def test_calls_repeated_in_one_turn_are_one_lapse(ex):
    result = run(ex, "turn-duplicate-cooperative")
    assert result.stop_reason is StopReason.COMPLETED, \
        (f"scenario `turn-duplicate-cooperative`: stop reason {result.stop_reason.value}. The model asked for the "
         "same order three times in ONE turn, before it could read any warning: answer the copies without running "
         "them, but count the turn as one lapse; a stop needs a repeat in a later turn")
    assert executed(result, "get_order") == 1, "the copies of a call in one turn must not run"


def test_metadata_is_not_news(ex):
    first = json.dumps({"ok": True, "data": {"status": "running", "checked_at": "2026-11-30T09:00:05Z",
                                             "request_id": "r-1"}})
    second = json.dumps({"ok": True, "data": {"status": "running", "checked_at": "2026-11-30T09:00:10Z",
                                              "request_id": "r-2"}})
    assert ex.result_fingerprint(first) == ex.result_fingerprint(second), \
        "two results that differ only in checked_at and request_id say the same thing (use `without_metadata`)"
    result = run(ex, "polling-metadata-stuck")
    assert result.stop_reason in (StopReason.NO_PROGRESS, StopReason.REPEATED_CALL) and result.model_calls <= 5, \
        (f"scenario `polling-metadata-stuck`: stop reason {result.stop_reason.value} after {result.model_calls} model "
         "calls. A stuck job with a fresh timestamp is still stuck: metadata is not news")


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
def test_interventions_keep_every_request_protocol_valid(ex, wire):
    for name in ("repeat-exact", "same-result", "alternation", "airport-unknown-code", "empty-rephrase"):
        def loop(episode, max_steps):
            return guarded_loop(episode, max_steps, Parts(guard=ex.make_guard(episode)))

        attempt = run_candidate(loop, name, wire=wire)
        assert not isinstance(attempt.error, ProtocolError), \
            attempt.story() + "\n(every call the guard does not run must still be answered, by its call id)"
        if attempt.error is not None:
            pytest.fail(attempt.story(), pytrace=False)


# ---------------------------------------------------------------- kinds of wrong answer found by mutation testing

def run_with(ex, scenario, **thresholds):
    """The scenario under the guarded loop with the candidate's LoopGuard and the given thresholds."""
    def loop(episode, max_steps):
        return guarded_loop(episode, max_steps, Parts(guard=ex.LoopGuard(episode, **thresholds)))

    attempt = run_candidate(loop, scenario)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    return attempt.result


def lookups(name: str, found: dict[str, dict], turns: list, *, then_answer: bool = True, tools=("lookup",)):
    """One or more search tools: a query in `found` returns its data, any other returns an empty result.
    `turns`: per model turn, a (tool, query[, call id]) call, a list of them (parallel calls), or raw argument text."""
    def call(c):
        if isinstance(c, str):
            return {"tool": tools[0], "raw_args": c}
        return {"tool": c[0], "args": {"query": c[1]}, **({"id": c[2]} if len(c) > 2 else {})}
    script = [{"calls": [call(c) for c in t]} if isinstance(t, list) else {"call": call(t)} for t in turns]
    return parse_scenario({
        "name": name, "title": name, "user": "Find it, please.", "limits": {"max_steps": len(turns) + 2},
        "tools": [{**_search(tool, "Search."), "rules": [
            *({"when": {"query": q}, "result": {"data": d}} for q, d in found.items()),
            {"result": {"data": {"results": []}}}]} for tool in tools],
        "model": {"script": script + ([{"answer": "Here is what I found."}] if then_answer else []),
                  "cycle": [] if then_answer else script[-1:]},
        "expect": {"completable": then_answer, "stop_reason": "completed"},
    }, source=f"tests/test_ex03_fingerprint_guard.py ({name})")


def test_absent_arguments_count_as_their_schema_default(ex):
    schema = json.loads('{"type": "object", "properties": {"query": {"type": "string"}, '
                        '"page": {"type": "integer", "default": 1}, "lang": {"type": "string"}}}')
    fp = lambda args: ex.fingerprint("search_kb", args, schema, TODAY)  # noqa: E731
    assert fp({"query": "sso"}) == fp({"query": "sso", "page": 1}), \
        "page defaults to 1: leaving it out and sending page 1 is the same call"
    assert fp({"query": "sso", "page": 2}) != fp({"query": "sso"}), "page 2 is not the default page: a new call"
    assert fp({"query": "sso"}) != fp({"query": "sso", "lang": ""}), \
        "lang has no default: leaving it out is not the same as sending it"


def test_dates_and_case_follow_the_schema_not_the_value(ex):
    schema = json.loads('{"type": "object", "properties": {"day": {"type": "string", "format": "date"}, '
                        '"city": {"type": "string", "description": "City name, case-insensitive"}, '
                        '"ticket": {"type": "string", "description": "Ticket id (not case-insensitive)"}, '
                        '"note": {"type": "string"}}}')
    fp = lambda **args: ex.fingerprint("book", args, schema, TODAY)  # noqa: E731
    assert fp(day="tomorrow") == fp(day="2026-12-01"), "format: date alone makes 'tomorrow' a date"
    assert fp(city="shanghai") == fp(city="SHANGHAI"), "the city is described as case-insensitive"
    assert fp(ticket="ab-12") != fp(ticket="AB-12"), "'not case-insensitive' keeps the case"
    assert fp(note="ok") != fp(note="OK"), "nothing says the note ignores case: keep it"


def test_odd_values_never_break_a_fingerprint(ex):
    orders = find("paging-legit").tools[0].parameters  # page: integer
    assert ex.fingerprint("list_orders", {"year": 2026, "page": "two"}, orders, TODAY) != \
        ex.fingerprint("list_orders", {"year": 2026, "page": 2}, orders, TODAY), "'two' is not a number: keep the text"
    unknown = {ex.fingerprint("search_flights", {"origin": o, "destination": "SHA", "date": "2026-12-01"}, FLIGHTS,
                              TODAY) for o in ("qqq", "QQQ", " Qqq")}
    assert len(unknown) == 1, "an unknown airport code is kept, upper-case, never a guess"


def test_repeated_allows_one_earlier_run_by_default(ex):
    assert ex.repeated([], "a") is None and ex.repeated(["b"], "a") is None, "nothing earlier: not a repeat"
    assert ex.repeated(["a", "b"], "a") == 1, "by default one earlier run of the same action is a repeat (1 earlier)"


def test_no_progress_answers_the_last_call_of_a_parallel_step(ex):
    # the second step's ids are out of order: "the last call" is the last in the turn, not the greatest or least id
    scenario = lookups("parallel-empty", {}, [[("lookup", "a"), ("lookup", "b")],
                                              [("lookup", "c", "call_zz"), ("lookup", "d", "call_aa"),
                                               ("lookup", "e", "call_mm")]])
    result = run(ex, scenario)
    tool_messages = [m for m in result.messages if isinstance(m, ToolMessage)]
    flagged = [m.call_id for m in tool_messages if "loop_detected" in m.content]
    last_call = [m for m in result.messages if m.role == "assistant"][1].tool_calls[-1].id
    assert flagged == [last_call], (
        f"inline scenario `parallel-empty`: two steps of parallel empty searches; the no-progress feedback "
        f"should answer the last call of the second step ({last_call}), it answered {flagged}")


def test_no_progress_counts_quiet_steps_since_the_last_progress(ex):
    found = {"sso": {"results": [{"doc_id": "kb-1", "title": "SSO setup"}]}}
    result = run(ex, lookups("found-then-empty", found, [("lookup", "sso"), ("lookup", "saml"), ("lookup", "okta")]))
    notes = [n for n in feedback(result) if n.get("pattern") == "no_progress"]
    assert len(notes) == 1, (
        f"inline scenario `found-then-empty`: a find, then two empty searches: that is 2 quiet steps, one no-progress "
        f"intervention expected, got {len(notes)}")
    note = notes[0]
    assert re.search(r"\b2\b", note["evidence"]), f"the evidence should say how many steps were quiet (2): {note}"
    assert note.get("not_run") is False and note.get("result") == {"results": []}, (
        f"the call ran: the feedback says so (not_run: false) and carries its result: {note}")


def test_feedback_says_whether_the_call_ran(ex):
    repeat = feedback(run(ex, "repeat-exact"))[0]
    assert repeat.get("not_run") is True, \
        f"scenario `repeat-exact`: a repeat is not run, and the feedback says so: {repeat}"
    same = [n for n in feedback(run(ex, "same-result")) if n.get("pattern") == "same_result"][0]
    assert same.get("not_run") is False and same.get("result"), \
        f"scenario `same-result`: the rephrased search ran; its feedback carries the result (not_run: false): {same}"


def test_options_name_the_other_tools_only(ex):
    result = run(ex, "alternation")
    note = feedback(result)[0]
    others = [o for o in note["options"] if "another tool" in o]
    tools = [t.name for t in find("alternation").tools]
    assert len(others) == 1, f"scenario `alternation`: an option should offer the other tool(s): {note['options']}"
    named = [t for t in tools if t in others[0]]
    assert len(named) == len(tools) - 1, (
        f"scenario `alternation`: the option {others[0]!r} should name the other tool, not the one just flagged")
    # the flagged tool's name sorts after the other one's: "other" means not this one, whatever the order
    b_then_a = lookups("b-then-a", {}, [("b_search", "x"), ("b_search", "x")], tools=("b_search", "a_search"))
    repeat = feedback(run(ex, b_then_a))
    assert [o for o in repeat[0]["options"] if "a_search" in o], \
        f"inline scenario `b-then-a`: b_search was flagged; offer the other tool, a_search: {repeat[0]['options']}"
    single = feedback(run(ex, "repeat-exact-cooperative"))[0]
    assert not [o for o in single["options"] if "another tool" in o], \
        f"scenario `repeat-exact-cooperative` has one tool: no other tool to offer: {single['options']}"


@pytest.mark.parametrize("interventions", [0, 2])
def test_the_number_of_interventions_is_honoured(ex, interventions):
    result = run_with(ex, "repeat-exact", interventions=interventions)
    notes = feedback(result)
    warned = [n for n in notes if "stopping" not in n.get("instruction", "").lower()]
    assert result.stop_reason is StopReason.REPEATED_CALL and len(warned) == interventions, (
        f"scenario `repeat-exact` with interventions={interventions}: {len(warned)} warning(s) before the stop "
        f"({result.stop_reason.value}); exactly {interventions} expected")


def test_alternation_evidence_names_both_calls(ex):
    note = [n for n in feedback(run(ex, "alternation-cooperative")) if n["pattern"] == "alternation"][0]
    tools = [t.name for t in find("alternation-cooperative").tools]
    assert all(t in note["evidence"] for t in tools), f"the evidence should name both calls ({tools}): {note}"


def test_a_b_a_then_a_new_call_is_not_alternation(ex):
    scenario = lookups("a-b-a-c", {}, [("lookup", "alpha"), ("lookup", "beta"), ("lookup", "alpha"),
                                       ("lookup", "gamma")])
    patterns = [n["pattern"] for n in feedback(run_with(ex, scenario, allowed_runs=2, no_progress_steps=9))]
    assert "alternation" not in patterns, f"inline scenario `a-b-a-c`: A-B-A-C is not alternation: {patterns}"


def test_four_identical_calls_are_repeats_not_alternation(ex):
    scenario = lookups("a-a-a-a", {}, [("lookup", "alpha")] * 4)
    patterns = [n["pattern"] for n in feedback(run_with(ex, scenario, allowed_runs=3, no_progress_steps=9))]
    assert patterns[:1] == ["repeated_call"], f"inline scenario `a-a-a-a`: A-A-A-A is a repeat: {patterns}"


def test_a_repeated_malformed_call_is_flagged(ex):
    result = run(ex, lookups("malformed-twice", {}, ['{"query": ', '{"query":  ']))
    assert [n["pattern"] for n in feedback(result)] == ["repeated_call"], (
        f"inline scenario `malformed-twice`: the same malformed arguments twice are a repeat: {feedback(result)}")


def test_a_flagged_step_is_not_also_a_quiet_step(ex):
    scenario = lookups("repeat-and-empty", {}, [("lookup", "a"), [("lookup", "a"), ("lookup", "b")]])
    result = run(ex, scenario)
    assert [n["pattern"] for n in feedback(result)] == ["repeated_call"] and \
        result.stop_reason is StopReason.COMPLETED, (
        f"inline scenario `repeat-and-empty`: the second step's repeat was flagged; that step is not also counted "
        f"as quiet: {[n['pattern'] for n in feedback(result)]}, {result.stop_reason.value}")


def polls(name: str, turns: list[list[str | None]]) -> Scenario:
    """A job-status tool that may be polled (`volatile`), asked about job j1: per model turn, the ids of its calls
    (None: the model's own). The job is running, then done."""
    script = [{"calls": [{"tool": "job_status", "args": {"job": "j1"}, **({"id": i} if i else {})} for i in turn]}
              for turn in turns]
    return parse_scenario({
        "name": name, "title": name, "user": "Is job j1 done yet?",
        "tools": [{"name": "job_status", "description": "The status of a job.", "volatile": True,
                   "parameters": {"type": "object", "properties": {"job": {"type": "string"}}, "required": ["job"]},
                   "rules": [{"results": [{"data": {"job": "j1", "status": s}} for s in ("running", "done")]}]}],
        "model": {"script": script + [{"answer": "Job j1 is done."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    }, source=f"tests/test_ex03_fingerprint_guard.py ({name})")


def test_a_volatile_call_asked_twice_in_one_turn_is_answered_once(ex):
    # polling is judged by its result, but two copies of one poll in ONE answer are still one question asked twice
    result = run(ex, polls("poll-twice-in-one-turn", [[None, None]]))
    notes = feedback(result)
    assert executed(result, "job_status") == 1 and [n["pattern"] for n in notes] == ["repeated_call"], (
        f"inline scenario `poll-twice-in-one-turn`: one turn asks for the same status twice; the copy must be "
        f"answered without running it (job_status ran {executed(result, 'job_status')} time(s)), flagged as a "
        f"repeated call: {[n['pattern'] for n in notes]}")
    assert notes[0].get("not_run") is True and result.stop_reason is StopReason.COMPLETED, (
        f"the copy did not run, and the feedback says so (not_run: true); one lapse is a warning, the run goes on "
        f"to its answer: {notes[0]}, {result.stop_reason.value}")


def test_a_new_answer_is_a_new_turn_even_with_the_same_call_ids(ex):
    # A turn is one model answer (one assistant message). This model is faulty: its second answer polls again
    # with the first answer's call id. That is a new turn, and a poll in a new turn runs. (Two steps only: the
    # API would refuse a third request whose history holds one call id twice.)
    def loop(episode, max_steps):
        return guarded_loop(episode, max_steps, Parts(guard=ex.make_guard(episode)))

    attempt = run_candidate(loop, polls("poll-again-same-id", [["call_1"], ["call_1"]]), max_steps=2)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    result = attempt.result
    answers = [m for m in result.messages if m.role == "assistant"]
    assert answers[0] == answers[1] and answers[0] is not answers[1], "the model's two answers are alike"
    assert executed(result, "job_status") == 2 and not feedback(result), (
        f"inline scenario `poll-again-same-id`: the model polled job_status in its first answer and again in its "
        f"second, reusing the call id call_1. A new answer is a new turn, whatever its call ids: the second poll "
        f"must run (it ran {executed(result, 'job_status')} of 2 times; feedback: "
        f"{[n['evidence'] for n in feedback(result)]})")


def test_calls_that_fail_the_same_way_are_not_the_same_result(ex):
    scenario = parse_scenario({
        "name": "same-error", "title": "three lookups, one error", "user": "Find my order.",
        "tools": [{**_search("lookup", "Search."), "rules": [{"result": {"fault": "not_found"}}]}],
        "model": {"script": [{"call": {"tool": "lookup", "args": {"query": q}}} for q in ("A1", "A2", "A3")]
                  + [{"answer": "No order matches."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    })
    result = run(ex, scenario)
    assert not feedback(result) and result.stop_reason is StopReason.COMPLETED, (
        f"inline scenario `same-error`: three different lookups each answered not_found; an error is not a result: "
        f"{[n['pattern'] for n in feedback(result)]}")


def test_two_runs_in_one_process_share_nothing(ex, target):
    def outline(result):
        return (result.stop_reason, result.model_calls, [n["pattern"] for n in feedback(result)])
    names = ("repeat-exact-cooperative", "alternation-cooperative", "repeat-exact-cooperative", "empty-rephrase")
    # in this process, as a service runs its loop: a fork per run would start each from a fresh module
    try:
        first = [outline(run(ex, name, sandbox="in-process")) for name in names]
    except pytest.fail.Exception as exc:  # a later run refused: what it claimed came from an earlier run
        pytest.fail(f"{exc.msg} (one run's history must not leak into the next)", pytrace=False)
    fresh = load_exercise(target, "ex03_fingerprint_guard")
    again = {name: outline(run(fresh, name, sandbox="in-process")) for name in names}
    assert first == [again[name] for name in names], (
        "several scenarios in one process differ from fresh runs: one run's history must not leak into the next")
