"""A hostile scenario file gets one clear line (file, field, line, what was expected), never a hang or a traceback.

Big files are generated here at test time; none is committed. The load time of a 5 MB file is measured
by benchmarks/load_big_scenario.py, not here (no wall-clock assertions in tests).
"""
from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from reference import cli
from reference.core.errors import ScenarioError
from reference.sim.scenario import yaml_reader, yaml_scalars
from reference.runs.runner import run
from reference.sim.scenario.loading import load_scenario
from reference.sim.scenario.schema import Bound, CancelDef, ExpectDef, LimitsDef, Scenario
from reference.sim.scenario.schema_script import LatencyDef, ModelDef, PolicyDef, PricingDef, StepDef
from reference.sim.scenario.schema_tools import (MAX_GROW_CHARS, MAX_RESULT_CHARS, MAX_SIZE_CHARS, ResultDef,
                                                 RuleDef, ToolDef)
from reference.sim.clock import SimClock
from reference.sim.tools import FakeTool
from tests.helpers.scenario_text import VALID

DOC = Path(__file__).resolve().parent.parent / "docs" / "scenarios.md"


def refused(tmp_path: Path, text: str | bytes, name: str = "hostile.yaml") -> str:
    """The one problem line for a file that must be refused (through `loopkit run`, as a user meets it)."""
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert "Traceback" not in message
    for line in message.splitlines():
        assert line.startswith(f"{path}: "), f"every line names the file: {message}"
    return message


def with_value(field_path: str, yaml_value: str) -> str:
    """VALID with one field set to a YAML literal (written as text, so `.inf` stays what YAML reads)."""
    data = yaml.safe_load(VALID)
    node: Any = data
    *parents, last = _parts(field_path)
    for part in parents:
        if isinstance(node, dict):
            node = node.setdefault(part, {})
        else:
            node = node[part]
    node[last] = "@@VALUE@@"
    return yaml.safe_dump(data, sort_keys=False).replace("'@@VALUE@@'", yaml_value)


def _parts(field_path: str) -> list[Any]:
    parts: list[Any] = []
    for piece in field_path.replace("]", "").split("."):
        name, *indexes = piece.split("[")
        parts += [name] + [int(i) for i in indexes]
    return parts


# ---------------------------------------------------------------- every numeric field

# where an object of each class sits in VALID (the answer step is model.script[1], the rule has a result)
PLACES = {LimitsDef: "limits", PricingDef: "model.pricing", LatencyDef: "model.latency", PolicyDef: "model.policy",
          ModelDef: "model", StepDef: "model.script[1]", ToolDef: "tools[0]", RuleDef: "tools[0].rules[0]",
          ResultDef: "tools[0].rules[0].result", ExpectDef: "expect", Bound: "expect.model_calls", CancelDef: "cancel"}


def _numeric(annotation: Any) -> bool:
    args = typing.get_args(annotation)
    return annotation in (int, float) or any(_numeric(a) for a in args)


NUMERIC_FIELDS = [f"{PLACES[cls]}.{name}" for cls in PLACES for name, field in cls.model_fields.items()
                  if _numeric(field.annotation)]


def test_every_class_with_a_numeric_field_is_covered():
    def classes(model: type[BaseModel]) -> set[type]:
        found = {model}
        for field in model.model_fields.values():
            stack = [field.annotation]
            while stack:
                arg = stack.pop()
                stack += typing.get_args(arg)
                if isinstance(arg, type) and issubclass(arg, BaseModel) and arg not in found:
                    found |= classes(arg)
        return found
    numeric = {c for c in classes(Scenario) if any(_numeric(f.annotation) for f in c.model_fields.values())}
    assert numeric <= set(PLACES), f"add these to PLACES: {numeric - set(PLACES)}"
    assert len(NUMERIC_FIELDS) >= 20, NUMERIC_FIELDS


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", ".NaN", "1.0e+999", "-1e999", '"inf"', '"nan"',
                                   '"1e999"', "true", "yes", '"8"'])
@pytest.mark.parametrize("field", NUMERIC_FIELDS)
def test_inf_nan_booleans_and_text_are_refused_in_every_numeric_field(tmp_path, field, value):
    message = refused(tmp_path, with_value(field, value))
    assert len(message.splitlines()) == 1, message
    assert f": {field}: " in message, f"the line names the field {field}: {message}"
    assert "(line " in message or "at line" in message, f"the line number is known here: {message}"


def test_infinity_is_refused_in_tool_data_and_arguments_too(tmp_path):
    assert "tools[0].rules[0].result.data.n: expected a finite number, got .nan" in \
        refused(tmp_path, with_value("tools[0].rules[0].result.data.n", ".nan"))
    assert "model.script[0].call.args.limit: expected a finite number" in \
        refused(tmp_path, with_value("model.script[0].call.args.limit", "-.inf"))


def test_words_inf_and_nan_as_quoted_text_stay_text(tmp_path):
    path = tmp_path / "text.yaml"
    path.write_text(with_value("tools[0].rules[0].result.data.n", '"NaN"'), encoding="utf-8")
    assert load_scenario(path).tools[0].rules[0].result.data == {"text": "Refunds within 30 days.", "n": "NaN"}


def test_json_exponents_are_numbers(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(with_value("limits.max_seconds", "0.5e6"), encoding="utf-8")
    assert load_scenario(path).limits.max_seconds == 500_000.0


# ---------------------------------------------------------------- numbers, bounds, sizes

def test_a_5000_digit_integer_is_refused_naming_the_field(tmp_path):
    for field in ("limits.max_steps", "model.seed", "tools[0].rules[0].result.data.n"):
        message = refused(tmp_path, with_value(field, "-" * (field == "model.seed") + "9" * 5000))
        assert f"{field}: an integer of 5,000 digits; at most {yaml_scalars.MAX_INT_DIGITS}" in message, message
    assert "0x" not in refused(tmp_path, with_value("limits.max_run_tokens", "0x" + "f" * 5000)).split(": ", 2)[1]


def test_a_bound_whose_min_is_above_its_max_is_refused_and_equal_ends_are_fine(tmp_path):
    message = refused(tmp_path, with_value("expect.cost_usd", "{min: 1.0, max: 0.5}"))
    assert "expect.cost_usd: min (1) is greater than max (0.5): the bound can never hold" in message
    path = tmp_path / "equal.yaml"
    path.write_text(with_value("expect.model_calls", "{min: 2, max: 2}"), encoding="utf-8")
    assert load_scenario(path).expect.model_calls == Bound(min=2, max=2)


@pytest.mark.parametrize("field,maximum", [("size_chars", MAX_SIZE_CHARS), ("grow_chars", MAX_GROW_CHARS)])
def test_result_sizes_have_a_maximum(tmp_path, field, maximum):
    message = refused(tmp_path, with_value(f"tools[0].rules[0].result.{field}", str(maximum + 1)))
    assert f"tools[0].rules[0].result.{field}: Input should be less than or equal to {maximum}" in message
    path = tmp_path / "max.yaml"
    path.write_text(with_value(f"tools[0].rules[0].result.{field}", str(maximum)), encoding="utf-8")
    assert getattr(load_scenario(path).tools[0].rules[0].result, field) == maximum


def test_a_growing_result_stops_growing_at_the_maximum():
    tool = FakeTool(ToolDef(name="tail", rules=[RuleDef(result=ResultDef(grow_chars=MAX_GROW_CHARS))]),
                    SimClock.at())
    sizes = [len(tool({}).to_content()) for _ in range(12)]
    assert sizes[9] > MAX_RESULT_CHARS * 0.99 and sizes[11] == sizes[10] == sizes[9], sizes


def test_the_documented_maxima_are_the_codes():
    text = DOC.read_text(encoding="utf-8")
    for figure in (f"at most {MAX_SIZE_CHARS:,}", f"at most {MAX_GROW_CHARS:,}",
                   f"{MAX_RESULT_CHARS:,} characters", f"{yaml_scalars.MAX_INT_DIGITS} digits",
                   f"{yaml_reader.MAX_DEPTH} levels", f"{yaml_reader.MAX_ALIAS_VALUES:,} values",
                   f"{yaml_reader.MAX_ALIAS_CHARS:,} characters"):
        assert figure in text, f"docs/scenarios.md should say {figure!r}"


# ---------------------------------------------------------------- YAML itself

def test_a_file_that_is_not_utf8_is_refused_naming_the_byte_and_line(tmp_path):
    raw = VALID.encode("utf-8").replace(b"refund window?", b"caf\xe9 window?")
    assert "not UTF-8 text: byte 0xE9 at line 3, column" in refused(tmp_path, raw)
    assert "not UTF-8" in refused(tmp_path, VALID.encode("utf-16"))


def test_a_byte_order_mark_and_crlf_line_ends_are_fine(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + VALID.replace("\n", "\r\n").encode("utf-8"))
    assert load_scenario(path).name == "refund-lookup"


def test_duplicate_keys_are_refused_naming_both_lines(tmp_path):
    last = VALID.count("\n") + 1
    assert refused(tmp_path, VALID + "name: other\n") == \
        f"{tmp_path / 'hostile.yaml'}: name: duplicate key 'name' at lines 1 and {last}: give it once"
    message = refused(tmp_path, VALID.replace("call: {tool: search_docs, args: {query: refund window}}",
                                              "call: {tool: search_docs, args: {query: a, query: b}}"))
    call = VALID[:VALID.index("call: {tool: search_docs")].count("\n") + 1
    assert f"model.script[0].call.args.query: duplicate key 'query' at lines {call} and {call}" in message


BILLION_LAUGHS = "data:\n" + "  l0: &a0 [lol]\n" + "".join(
    f"  l{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))


def test_a_billion_laughs_is_refused_after_reading_the_file_once(tmp_path):
    data = "\n".join("          " + line for line in BILLION_LAUGHS.splitlines())
    text = VALID.replace('      - result: {data: {text: "Refunds within 30 days."}}', "      - result:\n" + data)
    message = refused(tmp_path, text)
    assert f"aliases expand to more than {yaml_reader.MAX_ALIAS_VALUES:,} values" in message
    assert "tools[0].rules[0].result.data.l" in message


def test_one_big_string_aliased_many_times_is_refused(tmp_path):
    text = VALID + 'description: &s "' + "x" * 100_000 + '"\ntags: [' + ", ".join(["*s"] * 20) + "]\n"
    assert f"{yaml_reader.MAX_ALIAS_CHARS:,} characters" in refused(tmp_path, text)


@pytest.mark.parametrize("text", ["data: &a [1, *a]", "data: &a {x: 1, <<: *a}"], ids=["alias", "merge"])
def test_a_recursive_alias_is_refused(tmp_path, text):
    body = VALID.replace('{data: {text: "Refunds within 30 days."}}', "{" + text + "}")
    assert "is recursive" in refused(tmp_path, body)


def test_moderate_anchors_aliases_and_merges_load_as_before(tmp_path):
    text = ("base: &base {type: string}\ndefaults: &d {x: 1, y: 2}\nmerged: {<<: *d, y: 3}\n"
            "many: [*base, *base, *base]\nwhen: 2026-12-01\nn: 0x1f\nt: 1:30\n")
    data, _ = yaml_reader.read(text)
    assert data == yaml.load(text, Loader=type("L", (yaml.SafeLoader,), {})) | {"when": "2026-12-01"}
    assert list(data["merged"]) == ["x", "y"] and data["merged"]["y"] == 3


def test_deep_nesting_is_refused_and_reasonable_nesting_is_fine(tmp_path):
    deep = "{a: " * 200 + "1" + "}" * 200
    assert f"nested more than {yaml_reader.MAX_DEPTH} levels deep" in refused(
        tmp_path, VALID.replace('{data: {text: "Refunds within 30 days."}}', "{data: " + deep + "}"))
    refused(tmp_path, VALID.replace('{data: {text: "Refunds within 30 days."}}', "{data: " + "[" * 100_000 + "}"))
    path = tmp_path / "sixty.yaml"
    path.write_text(VALID.replace('{data: {text: "Refunds within 30 days."}}',
                                  "{data: " + "{a: " * 60 + "1" + "}" * 60 + "}"), encoding="utf-8")
    assert load_scenario(path).name == "refund-lookup"


@pytest.mark.parametrize("text,wanted", [
    (VALID + "---\nname: second\n", "a second YAML document"),
    (VALID.replace("title: One lookup", "title: !!python/object/apply:os.system ['echo x']\nx: 1"),
     "the tag tag:yaml.org,2002:python/object/apply:os.system is not allowed"),
    (VALID.replace("model:", "model:\n\tcycle: []"), "not valid YAML at line"),
    (VALID.replace("refund window?", "refund\x00window?"), "not valid YAML"),
    ("# only a comment\n", "got an empty file"),
], ids=["two-documents", "python-tag", "tab", "nul-byte", "empty"])
def test_yaml_that_is_not_one_plain_document_is_refused(tmp_path, text, wanted):
    message = refused(tmp_path, text)
    assert wanted in message and len(message.splitlines()) == 1, message


def test_many_mistakes_give_a_short_report(tmp_path):
    message = refused(tmp_path, VALID + "".join(f"bogus_{i}: 1\n" for i in range(20_000)))
    lines = message.splitlines()
    assert len(lines) == 10 and lines[-1].endswith("and 19,991 more problems"), lines[-3:]


def test_an_unknown_field_at_the_end_of_a_big_file_names_its_line(tmp_path):
    items = "".join(f"            - {{id: {i}, sku: SKU-{i:08d}, qty: {i % 7}}}\n" for i in range(20_000))
    text = VALID.replace('      - result: {data: {text: "Refunds within 30 days."}}',
                         "      - when: {never: matches}\n        result:\n          data:\n            items:\n"
                         + items + '      - result: {data: {text: "Refunds within 30 days."}}') + "bogus: 1\n"
    last = text.count("\n")
    assert refused(tmp_path, text).endswith(f"bogus: unknown field; allowed here: name, title, description, tags, "
                                            f"system, user, clock, intent, shape, checklist, limits, cancel, user_turns, tools, model, "
                                            f"expect (line {last})")


# ---------------------------------------------------------------- tool parameter schemas

PARAMS = "{type: object, properties: {query: {type: string}}, required: [query]}"


@pytest.mark.parametrize("schema,wanted", [
    ("{type: objekt}", "the arguments schema must have type 'object'"),
    ("{type: object, properties: {query: {type: string, minLength: -1}}}", "not a valid JSON Schema: "
                                                                            "properties.query.minLength: -1"),
    ("{type: object, properties: {query: {type: 42}}}", "not a valid JSON Schema"),
    ("{type: object, required: query}", "not a valid JSON Schema: required: 'query' is not of type 'array'"),
    ("{type: object, properties: {d: {$ref: 'http://example.com/s.json'}}}", "points outside the schema"),
    ("{type: object, properties: {d: {$ref: 'file:///etc/passwd'}}}", "points outside the schema"),
    ("{type: object, properties: {d: {$ref: 'other.yaml#/x'}}}", "points outside the schema"),
    ("{type: object, properties: {d: {$ref: '#/$defs/missing'}}}", "'#/$defs/missing' points to nothing"),
], ids=["type", "minLength", "nested-type", "required", "http", "file", "other-file", "dangling"])
def test_tool_schemas_are_checked_against_the_metaschema_and_refs_stay_inside(tmp_path, schema, wanted):
    message = refused(tmp_path, VALID.replace(PARAMS, schema))
    assert f"tools[0].parameters: " in message and wanted in message, message


@pytest.mark.parametrize("schema,where,chain", [
    ("{type: object, properties: {d: {$ref: '#/properties/d'}}}", "properties.d", "$ref '#/properties/d'"),
    ("{type: object, $ref: '#'}", "(the root)", "$ref '#'"),
    ("{type: object, $defs: {a: {$ref: '#/$defs/b'}, b: {anyOf: [{$ref: '#/$defs/a'}, {type: string}]}}, "
     "properties: {d: {$ref: '#/$defs/a'}}}", "$defs.a", "$ref '#/$defs/b' -> anyOf -> $ref '#/$defs/a'"),
], ids=["itself", "root", "through-anyOf"])
def test_a_ref_that_leads_back_to_itself_is_refused_in_one_line(tmp_path, schema, where, chain):
    message = refused(tmp_path, VALID.replace(PARAMS, schema))
    assert len(message.splitlines()) == 1, message
    assert f"tools[0].parameters: {where}: leads back to itself ({chain}) without reading any part of the arguments" \
        in message and "(line " in message, message


def test_a_schema_that_recurses_through_its_properties_is_fine_and_its_calls_run(tmp_path):
    """The legitimate case: a tree, each level one part deeper in the arguments, so checking a call ends."""
    tree = ("{type: object, $defs: {node: {type: object, properties: {name: {type: string}, "
            "children: {type: array, items: {$ref: '#/$defs/node'}}}}}, "
            "properties: {query: {type: string}, root: {$ref: '#/$defs/node'}, parent: {$ref: '#'}}, required: [query]}")
    path = tmp_path / "tree.yaml"
    path.write_text(VALID.replace(PARAMS, tree).replace("args: {query: refund window}",
                                                        "args: {query: refund window, root: {children: [{name: x}]}}"),
                    encoding="utf-8")
    scenario = load_scenario(path)
    result = run(scenario, "guarded")  # lesson 5's executor checks the arguments against the schema
    assert result.stop_reason.value == "completed" and not result.messages[3].is_error, result.messages[3].content


@pytest.mark.parametrize("blank", ["''", "' '"])
def test_an_empty_scripted_call_id_is_refused_not_replaced(tmp_path, blank):
    message = refused(tmp_path, VALID.replace("call: {tool: search_docs, args: {query: refund window}}",
                                              f"call: {{tool: search_docs, id: {blank}, args: {{query: refund window}}}}"))
    assert len(message.splitlines()) == 1, message
    assert "model.script[0].call.id: an id of" in message and "is no call id: leave 'id' out" in message, message
    assert "(line " in message, message


def test_a_forced_call_id_is_still_honoured(tmp_path):
    path = tmp_path / "forced.yaml"
    path.write_text(VALID.replace("args: {query: refund window}}", "args: {query: refund window}, id: call_x}"),
                    encoding="utf-8")
    result = run(load_scenario(path), "guarded")
    assert result.messages[2].tool_calls[0].id == "call_x" and result.messages[3].call_id == "call_x"


def test_a_ref_inside_the_schema_is_fine(tmp_path):
    path = tmp_path / "ref.yaml"
    path.write_text(VALID.replace(PARAMS, "{type: object, $defs: {q: {type: string}}, "
                                          "properties: {query: {$ref: '#/$defs/q'}, n: {enum: [{$ref: x}]}}}"),
                    encoding="utf-8")
    assert load_scenario(path).tools[0].parameters["properties"]["query"] == {"$ref": "#/$defs/q"}


# ---------------------------------------------------------------- through the command line

@pytest.mark.parametrize("text,field", [
    (with_value("limits.max_steps", "true"), "limits.max_steps"),
    (with_value("model.pricing.input_per_mtok", ".inf"), "model.pricing.input_per_mtok"),
    (VALID + "name: again\n", "name"),
    (with_value("limits.max_run_tokens", "9" * 5000), "limits.max_run_tokens"),
], ids=["bool", "inf", "duplicate", "bigint"])
def test_loopkit_run_exits_2_with_one_line_naming_file_field_and_line(tmp_path, capsys, text, field):
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["run", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    header, problem, *more = err.splitlines()
    assert header == "loopkit: invalid scenario" and not more, err
    assert problem.startswith(f"{path}: {field}: ") and "line" in problem, problem


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_run_json_is_strict_json(capsys):
    assert cli.main(["run", "token-blowup", "--json"]) == 0
    assert _strict_json(capsys.readouterr().out)["scenario"] == "token-blowup"
