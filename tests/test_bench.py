"""`loopkit bench`: the verdicts without any framework, and one smoke run with the lightest framework.

The smoke test is marked `bench` and runs only when asked for: `pytest -m bench` (.ci/run does, once). It makes
pydantic-ai's venv under ~/.cache/loopkit-bench the first time (from PyPI), as `loopkit bench` does.
"""
import json
import urllib.request

import pytest

from reference.bench.frameworks import FRAMEWORKS, ensure_venv
from reference.bench.host import TOOL_PATH, BenchApp
from reference.bench.report import markdown, read_table
from reference.bench.run import Outcome, run_one, task_done
from reference.serve.http import ServeHTTP
from reference.sim.scenario.loading import find


def test_the_tool_endpoint_runs_the_scenarios_fake_tool():
    app = BenchApp(find("happy-path"))
    with ServeHTTP(app, "127.0.0.1", 0) as server:
        body = json.dumps({"name": "get_weather", "arguments": {"city": "Shanghai", "date": "2026-12-01"}}).encode()
        request = urllib.request.Request(server.base_url + TOOL_PATH, body, {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as answer:
            result = json.loads(answer.read())
    assert result["ok"] and result["data"]["forecast"] == "light rain"
    assert [(name, ok) for name, ok, _ in app.results] == [("get_weather", True)]


def test_done_needs_the_facts_and_a_successful_result_of_every_needed_tool():
    scenario = find("happy-path")
    answer = "Light rain tomorrow; take MU5138."
    both = [("get_weather", True, "{}"), ("search_flights", True, "{}")]
    assert task_done(scenario, answer, both) is True
    assert task_done(scenario, answer, both[:1]) is False  # the flights never came back: a made-up fact
    assert task_done(scenario, "Light rain.", both) is False
    assert task_done(scenario, None, both) is False
    assert task_done(find("tool-down"), "anything", both) is None  # cannot be completed


def test_the_page_keeps_a_table_that_lesson_7_reads():
    outcome = Outcome("pydantic-ai", "happy-path", 2, "answered", True, 800, 99, 0.003, 2)
    args = type("Args", (), {"timeout": 60.0, "max_requests": 60})()
    page = markdown([outcome], {"pydantic-ai": "pydantic-ai-slim 2.68.0"}, "2026-11-30", args)
    assert read_table(page) == [{"framework": "pydantic-ai", "scenario": "happy-path", "model calls": "2",
                                 "stopped": "answered", "done": "yes", "tokens in/out": "800/99",
                                 "cost $": "0.0030"}]


def test_bench_defaults_to_the_whole_catalogue_and_a_plot_in_the_current_directory():
    from reference.cli.bench import plot_link
    from reference.cli.main import build_parser

    args = build_parser().parse_args(["bench"])
    assert args.scenarios is None  # cmd_bench reads None as the whole catalogue
    assert args.plot == "bench.png"  # relative: the current directory, never a tracked docs/ file
    assert plot_link("bench.png", "docs/bench.md") == "../bench.png"
    assert plot_link("docs/bench.png", "docs/bench.md") == "bench.png"
    assert plot_link("", "docs/bench.md") is None
    outcome = Outcome("pydantic-ai", "happy-path", 2, "answered", True, 800, 99, 0.003, 2)
    page = markdown([outcome], {}, "2026-11-30", args, plot_link=None)
    assert "![" not in page  # no plot written: no broken image link


def test_the_server_refuses_model_requests_over_its_cap():
    app = BenchApp(find("happy-path"), max_requests=0)
    status, _, data = app.respond("POST", "/v1/chat/completions", {}, b"{}")
    assert status == 429 and b"max-requests" in data
    assert app.books.figures()["refused_over_cap"] == 1


@pytest.mark.bench
def test_pydantic_ai_answers_the_happy_path_in_two_calls():
    ensure_venv(FRAMEWORKS["pydantic-ai"])
    outcome = run_one(FRAMEWORKS["pydantic-ai"], find("happy-path"), timeout=120, max_requests=10)
    assert (outcome.model_calls, outcome.stop, outcome.done, outcome.tool_calls) == (2, "answered", True, 2)
    assert outcome.input_tokens > 0 and outcome.cost > 0
