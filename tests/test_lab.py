"""The Loop Lab's logic, driven as a learner drives the widgets: set values, and read what the lab shows."""
from __future__ import annotations

import pytest

from reference.lab.engine import LabConfig, compare, run_config


def test_a_bare_loop_runs_to_the_step_limit_and_the_guarded_one_stops_the_repeat():
    bare, guarded = compare(LabConfig("repeat-exact"), LabConfig("repeat-exact").with_loop("guarded"))
    assert (bare.stop_reason, guarded.stop_reason) == ("max_steps", "repeated_call")
    assert bare.cumulative_tokens[-1] > guarded.cumulative_tokens[-1]
    assert "What you can do next" in guarded.answer and bare.answer == "(no answer)"


def test_each_switch_and_slider_changes_the_run():
    assert run_config(LabConfig("token-blowup", budget=True)).stop_reason == "token_budget"
    low = run_config(LabConfig("token-blowup", budget=True, token_budget=500))
    assert low.stop_reason == "token_budget" and len(low.steps) < 2
    assert run_config(LabConfig("happy-path", max_steps=1)).stop_reason == "max_steps"
    assert run_config(LabConfig("tool-down", executor=True)).stop_reason == "circuit_open"
    strict, lenient = (run_config(LabConfig("repeat-exact", guard=True, threshold=t)) for t in (1, 3))
    assert len(strict.steps) < len(lenient.steps)


def test_a_wire_the_scenario_cannot_speak_is_reported_not_raised():
    run = run_config(LabConfig("happy-path", wire="anthropic"))
    assert run.stop_reason == "completed" and run.steps[0]["tokens"] != run_config(LabConfig("happy-path")).steps[0]["tokens"]
    assert run_config(LabConfig("happy-path", wire="smoke-signals")).problem == "unknown wire format 'smoke-signals'"


def test_the_widgets_rerun_the_side_being_edited():
    from reference.lab.widgets import LoopLab

    lab = LoopLab()
    assert (lab.left.stop_reason, lab.right.stop_reason) == ("max_steps", "repeated_call")
    lab.controls["scenario"].value = "token-blowup"
    lab.controls["budget"].value = True
    assert lab.left.stop_reason == "token_budget" and lab.right.config.scenario == "repeat-exact"
    lab.controls["side"].value = "right"
    assert lab.controls["scenario"].value == "repeat-exact" and lab.controls["guard"].value is True
    lab.controls["loop"].value = "react"
    assert lab.right.stop_reason == "max_steps" and lab.controls["guard"].value is False
    assert lab.output.value.count("class='stop-reason'") == 2 and "token_budget" in lab.output.value
    lab.controls["max_steps"].value = 3
    assert lab.right.result.model_calls == 3
