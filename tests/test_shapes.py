"""Lesson 6: the trajectory-shape classifier, on every catalogue scenario and on generated runs."""
from __future__ import annotations

import random

import pytest

from reference.core.errors import ProviderError

from reference.diagnosis.shapes import FIXES, PROBLEMS, classify
from reference.harness.episode import Episode
from reference.runs.registry import run_loop
from reference.sim.scenario.loading import catalogue, parse_scenario
from reference.sim.scenario.schema import SHAPES

SCENARIOS = catalogue()

def _naive(scenario):
    episode = Episode.from_scenario(scenario)
    try:
        run_loop("react", episode)
    except ProviderError:  # the naive loop crashes on a provider failure: its trace up to there is the run
        pass
    return episode.trace


def test_every_catalogue_scenario_has_a_shape():
    assert all(s.shape in SHAPES for s in SCENARIOS)
    assert set(FIXES) == set(SHAPES) and set(PROBLEMS) < set(SHAPES)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_the_naive_run_of_each_scenario_has_its_shape(scenario):
    diagnosis = classify(_naive(scenario))
    assert diagnosis.shape == scenario.shape, (diagnosis.found, diagnosis.evidence)


def test_detection_step_and_tokens_after_it():
    trace = _naive(next(s for s in SCENARIOS if s.name == "repeat-exact"))
    diagnosis = classify(trace)
    steps = [r for r in trace.records if r["kind"] == "step"]
    assert diagnosis.detected_at == 2  # the first identical call with nothing new
    assert diagnosis.tokens_after == steps[-1]["tokens_so_far"] - steps[1]["tokens_so_far"] > 0
    healthy = classify(_naive(next(s for s in SCENARIOS if s.name == "happy-path")))
    assert (healthy.shape, healthy.detected_at, healthy.tokens_after) == ("healthy", None, 0)


# ---------------------------------------------------------------- generated runs

def _generated(shape: str, rng: random.Random) -> dict:
    """A scenario whose naive run has `shape`, with random names and sizes."""
    word = lambda: "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 9)))
    a, b = f"get_{word()}", f"list_{word()}"
    key = word()
    n = rng.randint(5, 9)
    one = {"data": {key: word(), "n": rng.randint(1, 99)}}
    tools = [{"name": a, "rules": [{"result": one}]}, {"name": b, "rules": [{"result": {"data": {"x": word()}}}]}]
    answer = [{"answer": "Done."}]
    call = lambda tool, value: {"call": {"tool": tool, "args": {key: value}}}
    if shape == "repeat":
        script = [call(a, "same")] * n
    elif shape == "cycle":
        script = [call(a, "x"), call(b, "y")] * (n // 2 + 1)
    elif shape == "rephrase":
        tools[0]["rules"] = [{"result": {"data": {"results": []}}}]
        script = [call(a, f"{word()} {word()} {word()}") for _ in range(n)]
    elif shape == "drift":  # one question in new identifiers: the airports of one metropolitan area
        metro = rng.choice([("PEK", "PKX", "BJS"), ("JFK", "LGA", "EWR", "NYC"), ("CDG", "ORY", "PAR"),
                            ("HND", "NRT", "TYO"), ("LHR", "LGW", "STN", "LON")])
        tools[0]["parameters"] = {"type": "object", "properties": {key: {"type": "string", "format": "iata"}}}
        script = [call(a, metro[i % len(metro)]) for i in range(n)]
    elif shape == "blowup":
        tools[0]["rules"] = [{"result": {"grow_chars": rng.randint(3000, 9000)}}]
        script = [call(a, f"page{i}") for i in range(n)]
    elif shape == "error_storm":
        tools[0]["rules"] = [{"result": {"fault": rng.choice(["server_error", "rate_limit", "timeout"])}}]
        script = [call(a, word()) for _ in range(n)]
    elif shape == "polling":
        tools[0]["volatile"] = True
        tools[0]["rules"] = [{"results": [{"data": {"state": "running"}}, {"data": {"state": "running"}},
                                          {"data": {"state": "done", "rows": rng.randint(5, 500)}}]}]
        script = [call(a, "job-1")] * 3 + answer
    else:  # healthy: new questions, new answers
        tools[0]["rules"] = [{"when": {key: f"v{i}"}, "result": {"data": {"value": word()}}} for i in range(n)]
        script = [call(a, f"v{i}") for i in range(rng.randint(1, 4))] + answer
    return {"name": f"gen-{shape.replace('_', '-')}", "title": "generated", "user": "Please help.", "tools": tools,
            "limits": {"max_steps": len(script)}, "model": {"script": script},
            "expect": {"completable": False, "stop_reason": "max_steps"}}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("shape", SHAPES)
def test_generated_runs_are_classified(shape, seed):
    scenario = parse_scenario(_generated(shape, random.Random(f"{shape}:{seed}")))
    diagnosis = classify(_naive(scenario))
    assert diagnosis.shape == shape, (diagnosis.found, diagnosis.evidence)
    assert (diagnosis.detected_at is None) == (shape == "healthy")
