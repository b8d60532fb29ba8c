"""A field scenario from tests/field_scenarios/, by name, run through the guarded loop."""
from __future__ import annotations

from pathlib import Path

import yaml

from reference import parse_scenario
from reference.runs.runner import run

FIELD = Path(__file__).resolve().parent.parent / "field_scenarios"


def run_field(name: str):
    """(the scenario, its guarded run)."""
    scenario = parse_scenario(yaml.safe_load((FIELD / f"{name}.yaml").read_text(encoding="utf-8")), name)
    return scenario, run(scenario, "guarded")
