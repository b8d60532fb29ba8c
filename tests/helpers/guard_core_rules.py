"""Rules every guard of exercise 3 keeps, core and stretch alike: each a check on a loaded exercise module, run by
the core's tests and again by the stretch's (which writes the whole guard anew)."""
from __future__ import annotations

import re

from reference import StopReason, find
from tests.helpers.guard_runs import feedback, flagged_tools, lookups, run, run_with, warned_notes


def check_a_warning_for_one_pattern_counts_against_the_next(ex):
    # A-B-A-B is warned at the fourth call; then C, C, C: the third C is a repeat (two earlier attempts reach
    # allowed_runs 2). The model has had its warning, whatever it loops on next: the run stops there.
    turns = [("lookup", q) for q in ("alpha", "beta", "alpha", "beta", "gamma", "gamma", "gamma")]
    result = run_with(ex, lookups("alternate-then-repeat", {}, turns), allowed_runs=2, no_progress_steps=9)
    patterns = [n["pattern"] for n in feedback(result)]
    assert result.stop_reason is StopReason.REPEATED_CALL and patterns == ["alternation", "repeated_call"], (
        f"inline scenario `alternate-then-repeat`: warned for alternating, then repeating: stop reason "
        f"{result.stop_reason.value}, interventions {patterns}. The warnings are counted per run, not one per "
        "pattern: the second detection of any kind stops the run")


def check_interventions_carry_evidence_options_and_an_instruction(ex):
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


def check_wrong_airport_code_gets_an_actionable_error(ex):
    result = run(ex, "airport-unknown-code")
    assert result.stop_reason is StopReason.COMPLETED and result.model_calls <= 3, \
        (f"scenario `airport-unknown-code`: stop reason {result.stop_reason.value} after {result.model_calls} model "
         "calls; BJX is in Mexico: answer the call with an invalid_argument error naming BJS, and do not run it")
    ran = [t.arguments.get("origin") for s in result.steps for t in s.tools]
    assert "BJX" not in ran, f"scenario `airport-unknown-code`: the search ran with BJX ({ran}); never a silent guess"


def check_alternation_is_stopped_as_alternation_when_repeats_are_allowed(ex):
    # The troubleshoot tier allows a second run of the same call, so A-B-A is not a repeat yet: only the
    # alternation detector sees the loop at the fourth call.
    scenario = find("alternation").model_copy(update={"name": "alternation-troubleshoot", "intent": "troubleshoot"})
    result = run(ex, scenario)
    assert result.stop_reason is StopReason.ALTERNATION and result.model_calls <= 5, \
        (f"scenario `alternation` with intent troubleshoot (allowed_runs 2): stop reason {result.stop_reason.value} "
         f"after {result.model_calls} model calls. A second run of a call is allowed here, so A-B-A is no repeat "
         "yet; the pattern is the pair: A-B-A-B must be seen as an alternation (intervene at the fourth call, stop "
         "at the fifth)")


def check_a_repeated_malformed_call_is_flagged(ex):
    result = run(ex, lookups("malformed-twice", {}, ['{"query": ', '{"query":  ']))
    assert [n["pattern"] for n in feedback(result)] == ["repeated_call"], (
        f"inline scenario `malformed-twice`: the same malformed arguments twice are a repeat: {feedback(result)}")


def check_options_name_the_other_tools_only(ex):
    # judged by the tool names the options hold, whatever words carry them
    for scenario in ("alternation",
                     lookups("b-then-a", {}, [("b_search", "x"), ("b_search", "x")], tools=("b_search", "a_search"))):
        result = run(ex, scenario)
        name = scenario if isinstance(scenario, str) else scenario.name
        tools = [t.name for t in (find(scenario) if isinstance(scenario, str) else scenario).tools]
        flagged = flagged_tools(result)[0]
        others = [t for t in tools if t != flagged]
        options = feedback(result)[0]["options"]
        assert all(any(t in o for o in options) for t in others), (
            f"scenario `{name}`: {flagged} was flagged; the options should offer the other tool(s) {others} by "
            f"name (the flagged one is not another tool, whatever its name sorts as): {options}")
        assert not [o for o in options if flagged in o], (
            f"scenario `{name}`: {flagged} was flagged; the options name the other tools only, never the one that "
            f"looped: {options}")


def check_the_number_of_interventions_is_honoured(ex, interventions):
    result = run_with(ex, "repeat-exact", interventions=interventions)
    warned = warned_notes(result)
    assert result.stop_reason is StopReason.REPEATED_CALL and len(warned) == interventions, (
        f"scenario `repeat-exact` with interventions={interventions}: {len(warned)} warning(s) before the stop "
        f"({result.stop_reason.value}); exactly {interventions} expected")


def check_alternation_evidence_names_both_calls(ex):
    note = [n for n in feedback(run(ex, "alternation-cooperative")) if n["pattern"] == "alternation"][0]
    tools = [t.name for t in find("alternation-cooperative").tools]
    assert all(t in note["evidence"] for t in tools), f"the evidence should name both calls ({tools}): {note}"
