"""Scenario files: a failure scenario in YAML, validated into typed objects (format: docs/scenarios.md).

    schema_tools.py    the tools: ToolDef, RuleDef, ResultDef
    schema_script.py   the scripted model: ModelDef, StepDef, CallDef, ReactionDef, policy, pricing, latency
    schema.py          the whole file: Scenario, with LimitsDef, ExpectDef, Bound, ChecklistItem
    messages.py        pydantic's errors as one clear line per field (file, field, what was expected)
    loading.py         load_scenario, parse_scenario, the cache, catalogue(), find()

A malformed file is rejected with a `ScenarioError` (reference/core/errors.py), e.g.

    scenarios/x.yaml: model.script[2].calls[0].tool: 'serch_flights' is not one of the scenario's
    tools (search_flights, get_weather)
"""
