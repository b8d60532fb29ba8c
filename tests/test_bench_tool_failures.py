"""The bench's tools fail for real: the host answers a failed tool with an error status, the driver's
tool function raises a real exception, and the books keep what each run returned or raised.
No framework is needed: the drivers' own `call_tool` is read from their source and run here."""
import ast
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from reference.bench.frameworks import DRIVERS
from reference.bench.host import RAISED, TOOL_PATH, BenchApp
from reference.serve.http import ServeHTTP
from reference.sim.books import call_key
from reference.sim.scenario.loading import find

WEATHER = {"city": "Shanghai", "date": "2026-12-01"}
RATE = {"base": "USD", "quote": "CNY"}


def driver_call_tool(driver: Path, tool_url: str):
    """The driver's own call_tool function, with its spec pointing at this server."""
    tree = ast.parse(driver.read_text())
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "call_tool"]
    namespace = {"json": json, "urllib": urllib, "spec": {"tool_url": tool_url}}
    exec(compile(ast.Module(found, []), str(driver), "exec"), namespace)
    return namespace["call_tool"]


def post(url: str, name: str, arguments: dict) -> tuple[int, dict, str]:
    request = urllib.request.Request(url, json.dumps({"name": name, "arguments": arguments}).encode(),
                                     {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, dict(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as failed:
        return failed.code, dict(failed.headers), failed.read().decode()


def test_a_tool_timeout_is_a_500_naming_timeouterror_then_the_retry_answers():
    app = BenchApp(find("flaky-timeout"))
    with ServeHTTP(app, "127.0.0.1", 0) as server:
        answers = [post(server.base_url + TOOL_PATH, "get_weather", WEATHER) for _ in range(3)]
    (s1, h1, b1), _, (s3, _, b3) = answers
    assert s1 == 500 and h1[RAISED] == "TimeoutError" and "timed out" in b1
    assert s3 == 200 and json.loads(b3)["data"]["forecast"] == "light rain"
    assert [(name, ok) for name, ok, _ in app.results] == [("get_weather", False)] * 2 + [("get_weather", True)]
    assert app.results[0][2].startswith("raised TimeoutError: ")
    assert len(app.episode.tools.outputs.raised("get_weather", WEATHER)) == 2


@pytest.mark.parametrize("driver", sorted(DRIVERS.glob("*.py")), ids=lambda p: p.stem)
def test_every_drivers_tool_function_raises_what_the_tool_raised(driver):
    with ServeHTTP(BenchApp(find("flaky-timeout")), "127.0.0.1", 0) as server:
        call_tool = driver_call_tool(driver, server.base_url + TOOL_PATH)
        with pytest.raises(TimeoutError, match="timed out"):
            call_tool("get_weather", json.dumps(WEATHER))
    with ServeHTTP(BenchApp(find("tool-down")), "127.0.0.1", 0) as server:
        call_tool = driver_call_tool(driver, server.base_url + TOOL_PATH)
        with pytest.raises(urllib.error.HTTPError) as raised:  # as a real client raises on the service's status
            call_tool("get_exchange_rate", json.dumps(RATE))
    assert raised.value.code == 503 and str(raised.value) == "HTTP Error 503: Service Unavailable"


def test_what_a_framework_reports_for_a_run_that_raised_is_the_tools_own_output():
    app = BenchApp(find("flaky-timeout"))
    with ServeHTTP(app, "127.0.0.1", 0) as server:
        for _ in range(3):  # timeout, timeout, the forecast
            post(server.base_url + TOOL_PATH, "get_weather", WEATHER)
    books, key = app.episode.tools.outputs, call_key("get_weather", WEATHER)
    raised = books.raised("get_weather", WEATHER)[0]
    assert books.is_own_output(key, f"Error executing tool 'get_weather': TimeoutError: {raised}", 1)
    assert books.is_own_output(key, "An error occurred while running the tool. Please try again.", 2)  # text hidden
    assert books.is_own_output(key, app.results[2][2], 3)
    assert not books.is_own_output(key, "Blocked: this call repeats an earlier one.", 3)  # an intervention
    assert not books.is_own_output(key, app.results[2][2], 4)  # the tool ran three times: a fourth was not run


def test_an_http_error_raised_from_a_returned_body_is_one_run():
    app = BenchApp(find("tool-down"))
    with ServeHTTP(app, "127.0.0.1", 0) as server:
        post(server.base_url + TOOL_PATH, "get_exchange_rate", RATE)
    books, key = app.episode.tools.outputs, call_key("get_exchange_rate", RATE)
    assert books.raised("get_exchange_rate", RATE) == ["HTTP Error 503: Service Unavailable"]
    assert books.is_own_output(key, "Error: HTTP Error 503: Service Unavailable", 1)
    assert not books.is_own_output(key, "Error: HTTP Error 503: Service Unavailable", 2)


def test_unknown_tools_and_bad_requests_are_not_exceptions_of_the_tool():
    app = BenchApp(find("happy-path"))
    with ServeHTTP(app, "127.0.0.1", 0) as server:
        status, _, body = post(server.base_url + TOOL_PATH, "no_such_tool", {})
        request = urllib.request.Request(server.base_url + TOOL_PATH, b"not json", {"content-type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as bad:
            urllib.request.urlopen(request, timeout=120)
    assert status == 200 and json.loads(body)["error_type"] == "unknown_tool"  # the toolbox's own answer
    assert bad.value.code == 400
