"""Scenario files: the catalogue loads, and a broken file gets an error a person can act on."""
from __future__ import annotations

import re

import pytest

from reference import ScenarioError, catalogue, find, load_scenario
from reference.core.result import StopReason
from reference.sim.scenario.loading import CATALOGUE
from tests.helpers.scenario_text import VALID

PYDANTIC_NOISE = re.compile(r"function-(after|before|wrap|plain)\[|union\[|tagged-union|literal\[|type=|"
                            r"errors\.pydantic\.dev|For further information|Value error,|instance of \w+|"
                            r"validation errors? for|input_type=")


def test_the_catalogue_has_at_least_twelve_scenarios_named_after_their_files():
    paths = sorted(CATALOGUE.glob("*.yaml"))
    scenarios = catalogue()
    assert len(scenarios) >= 12, f"the catalogue has {len(scenarios)} scenarios; the kit promises at least 12"
    assert [s.name for s in scenarios] == [p.stem for p in paths], \
        "every scenario's `name` must equal its file name, so `loopkit run NAME` finds it"


@pytest.mark.parametrize("path", sorted(CATALOGUE.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_catalogue_file_loads_and_is_found_by_name(path):
    scenario = load_scenario(path)
    assert scenario.name == path.stem, f"{path.name}: name is {scenario.name!r}"
    assert find(path.stem) is scenario, "find(NAME) returns the (cached) catalogue scenario"
    assert all(StopReason(r) for r in scenario.expect.stop_reasons)
    assert scenario.title and scenario.user


def test_a_valid_file_written_by_hand_loads(tmp_path):
    path = tmp_path / "refund-lookup.yaml"
    path.write_text(VALID, encoding="utf-8")
    scenario = load_scenario(path)
    assert (scenario.name, scenario.model.script[0].call.tool, scenario.source) == \
        ("refund-lookup", "search_docs", str(path))


def test_unquoted_dates_stay_text_so_they_match_the_models_string_arguments(tmp_path):
    path = tmp_path / "dates.yaml"
    path.write_text(VALID.replace("title:", "clock: 2026-11-30T09:00:00+08:00\ntitle:")
                    .replace("      - result: {data: {text: \"Refunds within 30 days.\"}}",
                             "      - when: {date: 2026-12-01}\n        result: {data: {date: 2026-12-01}}"),
                    encoding="utf-8")
    scenario = load_scenario(path)
    rule = scenario.tools[0].rules[0]
    assert scenario.clock == "2026-11-30T09:00:00+08:00", f"clock: {scenario.clock!r}"
    assert rule.when == {"date": "2026-12-01"} and rule.result.data == {"date": "2026-12-01"}, \
        f"YAML dates must load as strings (JSON has no dates), got {rule.when!r} / {rule.result.data!r}"


BROKEN = {  # name -> (how to break VALID, what the error must say)
    "missing_user": (lambda t: t.replace('user: "What is the refund window?"\n', ""),
                     ["user: this field is required"]),
    "typo_in_a_field_name": (lambda t: t.replace("expect:", "expcet:"),
                             ["expcet: unknown field; did you mean 'expect'?", "expect: this field is required"]),
    "typo_in_a_nested_field": (lambda t: t.replace("- answer:", "- anwser:"),
                               ["model.script[1].anwser: unknown field; did you mean 'answer'? allowed here: calls, "
                                "call, text, answer, fault, retry_after_seconds, timeout_seconds, finish_reason, repeat"]),
    "step_calls_a_tool_that_does_not_exist": (
        lambda t: t.replace("call: {tool: search_docs", "call: {tool: serch_docs"),
        ["model.script[0].call.tool: 'serch_docs' is not one of the scenario's tools (search_docs); "
         "set model.allow_unknown_tools to script it"]),
    "step_with_both_call_and_answer": (
        lambda t: t.replace("    - answer:", "    - call: {tool: search_docs}\n      answer:"),
        ["model.script[1]: a step needs exactly one of 'calls', 'call', 'answer' or 'fault', got 'call' and 'answer'"]),
    "unknown_stop_reason": (lambda t: t.replace("stop_reason: completed", "stop_reason: finished"),
                            ["expect.stop_reason: unknown stop reason 'finished'; expected one of alternation, "
                             "cancelled, circuit_open, completed, cost_budget"]),
    "stop_reason_of_the_wrong_type": (lambda t: t.replace("stop_reason: completed", "stop_reason: 7"),
                                      ["expect.stop_reason: Input should be a valid string or a valid list (got 7)"]),
    "unknown_fault": (lambda t: t.replace('{data: {text: "Refunds within 30 days."}}', "{fault: timeot}"),
                      ["tools[0].rules[0].result.fault: Input should be 'timeout', 'rate_limit'", "(got 'timeot')"]),
    "step_that_is_a_string": (lambda t: t.replace('- answer: "You can get a refund within 30 days."',
                                                  '- "answer: refunds"'),
                              ["model.script[1]: Input should be a mapping (key: value pairs) "
                               "(got 'answer: refunds')"]),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_file_is_rejected_naming_the_file_the_field_and_what_was_expected(tmp_path, case):
    breaking, wanted = BROKEN[case]
    path = tmp_path / f"{case.replace('_', '-')}.yaml"
    text = breaking(VALID)
    assert text != VALID, f"{case}: the test did not break anything"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    for line in message.splitlines():
        assert line.startswith(f"{path}: "), f"{case}: every line must name the file:\n{message}"
    for part in wanted:
        assert part in message, f"{case}: the error should say {part!r}, it says:\n{message}"
    assert not PYDANTIC_NOISE.search(message), f"{case}: pydantic internals leak into the message:\n{message}"
    assert "(top level)" not in message, f"{case}: the error should name a field:\n{message}"


def test_invalid_yaml_syntax_is_rejected_with_line_and_column(tmp_path):
    path = tmp_path / "bad-syntax.yaml"
    path.write_text(VALID.replace("title: One lookup", "title: [One lookup"), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert re.fullmatch(rf"{re.escape(str(path))}: not valid YAML at line \d+, column \d+: .+", str(info.value)), \
        f"expected file, line and column, got: {info.value}"


def test_a_top_level_list_is_rejected_saying_a_mapping_was_expected(tmp_path):
    path = tmp_path / "a-list.yaml"
    path.write_text("- name: refund-lookup\n- title: x\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == (f"{path}: expected a mapping at the top level (name, title, user, tools, model, "
                               "expect), got list")


def test_a_missing_file_and_an_unknown_name_are_clear_errors(tmp_path):
    with pytest.raises(ScenarioError, match=r"nope\.yaml: cannot read the file \(No such file or directory\)"):
        load_scenario(tmp_path / "nope.yaml")
    with pytest.raises(ScenarioError) as info:
        find("happy-paht")
    assert "no scenario named 'happy-paht'; the catalogue has: " in str(info.value) and "happy-path" in str(info.value)


def test_several_problems_are_all_reported_one_per_line(tmp_path):
    path = tmp_path / "many.yaml"
    path.write_text(VALID.replace('user: "What is the refund window?"\n', "").replace("expect:", "expcet:"),
                    encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    lines = str(info.value).splitlines()
    assert len(lines) == 3, f"missing user, missing expect and the unknown field, one per line: {lines}"


def test_a_parallel_step_names_the_bad_call_by_its_index(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(VALID.replace("    - call: {tool: search_docs, args: {query: refund window}}",
                                  "    - calls: [{tool: search_docs}, {tool: serch_flights}]"), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == (f"{path}: model.script[0].calls[1].tool: 'serch_flights' is not one of the "
                               "scenario's tools (search_docs); set model.allow_unknown_tools to script it")
