"""`loopkit serve`: the scripted model over real HTTP, for the official SDKs and curl in other processes.

Each test that reads a server's books starts its own (a `loopkit serve` process, or a ServeHTTP thread when the
test needs a double behind it) on 127.0.0.1, and stops it; the others share one process per scenario. No assertion depends on how long anything takes. The SDKs are
imported inside the tests that use them: a pytest worker that runs none of them does not import them to
collect this file.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from reference import Episode, StopReason, find, parse_scenario
from reference.cli.main import main as loopkit
from reference.loops.react import react_loop
from reference.providers.adapters import AnthropicModel, OpenAIChatModel, OpenAIResponsesModel
from reference.serve.app import ServeApp
from reference.serve.http import ServeHTTP

ROOT = Path(__file__).resolve().parent.parent
WIRES = ["openai-chat", "openai-responses", "anthropic"]


class Served:
    """A `loopkit serve SCENARIO` process; `stop()` sends SIGTERM and returns its exit code."""

    def __init__(self, scenario: str):
        self.process = subprocess.Popen([sys.executable, "-m", "reference.cli", "serve", scenario, "--port", "0"],
                                        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), f"loopkit serve printed {self.url!r}: " \
                                                         f"{self.process.stderr.read() if not self.url else ''}"

    def stop(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGTERM)
        _, err = self.process.communicate(timeout=60)
        return self.process.returncode, err

    def books(self) -> dict:
        import openai
        return openai.OpenAI(base_url=self.url, api_key="k").get("/loopkit/books", cast_to=object)


def stop_cleanly(server: Served) -> None:
    code, err = server.stop()
    assert code == 0, f"loopkit serve did not stop cleanly on SIGTERM (exit {code}): {err[-2000:]}"
    assert "stopped after" in err, err[-2000:]


@pytest.fixture
def served():
    """A server of the test's own, for a test that reads the server's books."""
    servers: list[Served] = []

    def start(scenario: str = "happy-path") -> Served:
        servers.append(Served(scenario))
        return servers[-1]

    yield start
    for server in servers:
        stop_cleanly(server)


@pytest.fixture(scope="module")
def shared():
    """One server per scenario for the tests that read no books (a process costs over a second of CPU to start):
    each conversation is its own on the server (the eight concurrent clients' test shows it), so these tests
    cannot see each other's requests."""
    servers: dict[str, Served] = {}

    def start(scenario: str = "happy-path") -> Served:
        if scenario not in servers:
            servers[scenario] = Served(scenario)
        return servers[scenario]

    yield start
    for server in servers.values():
        stop_cleanly(server)


def adapter(wire: str, url: str):
    import anthropic
    import openai
    if wire == "anthropic":
        return AnthropicModel(anthropic.Anthropic(base_url=url, api_key="k"))
    client = openai.OpenAI(base_url=url + "/v1", api_key="k")
    return OpenAIResponsesModel(client) if wire == "openai-responses" else OpenAIChatModel(client)


def in_process(name: str, wire: str):
    scenario = find(name)
    scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
    return react_loop(Episode.from_scenario(scenario), max_steps=scenario.limits.max_steps)


@pytest.mark.parametrize("wire", WIRES)
def test_a_loop_through_the_sdk_over_http_is_the_run_it_is_in_process(shared, wire):
    server = shared("paging-legit")
    scenario = find("paging-legit")
    episode = Episode.from_scenario(scenario, model=adapter(wire, server.url))
    got = react_loop(episode, max_steps=scenario.limits.max_steps)
    expected = in_process("paging-legit", wire)
    assert got.stop_reason is StopReason.COMPLETED, (got.stop_reason, got.detail)
    assert got.answer == expected.answer and got.transcript() == expected.transcript(), \
        f"{wire}: the conversation over HTTP differs from the in-process one"
    assert got.usage == expected.usage, (got.usage, expected.usage)


def test_eight_concurrent_clients_on_one_scenario_never_disturb_each_other(served):
    server = served("paging-legit")
    results, errors = {}, []

    def client(n: int) -> None:
        wire = WIRES[n % 3]
        try:
            episode = Episode.from_scenario(find("paging-legit"), model=adapter(wire, server.url))
            results[n] = (wire, react_loop(episode, max_steps=12))
        except Exception as exc:  # reported below, with the client's number
            errors.append(f"client {n} ({wire}): {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], errors
    for n, (wire, result) in sorted(results.items()):
        expected = in_process("paging-legit", wire)
        assert result.transcript() == expected.transcript(), f"client {n} ({wire}) got another conversation"
    books = server.books()
    assert books["by_status"] == {"200": books["requests"]} and books["hidden_retries"] == 0, books


def test_streams_on_all_three_wires_with_the_sdks_stream_helpers(shared):
    import anthropic
    import openai
    server = shared("happy-path")
    scenario = find("happy-path")
    first = [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.user}]
    chat_tools = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                    "parameters": t.parameters}} for t in scenario.tools]
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", _strict_response_validation=True)
    with client.chat.completions.stream(model="m", messages=first, tools=chat_tools,
                                        stream_options={"include_usage": True}) as stream:
        kinds = {event.type for event in stream}
        chat = stream.get_final_completion()
    assert "tool_calls.function.arguments.done" in kinds, kinds
    calls = chat.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["get_weather", "search_flights"]
    assert json.loads(calls[0].function.arguments) == {"city": "Shanghai", "date": "2026-12-01"}
    assert chat.usage.prompt_tokens > 0 and chat.usage.prompt_tokens_details.cached_tokens == 0

    tools = [{"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters,
              "strict": False} for t in scenario.tools]
    with client.responses.stream(model="m", input=first, tools=tools) as stream:
        response = stream.get_final_response()
    assert [o.type for o in response.output] == ["message", "function_call", "function_call"]
    assert response.usage.input_tokens_details.cached_tokens == 0

    claude = anthropic.Anthropic(base_url=server.url, api_key="k", _strict_response_validation=True)
    with claude.messages.stream(model="m", max_tokens=256, system=scenario.system, tools=[
            {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in scenario.tools],
            messages=[{"role": "user", "content": scenario.user}]) as stream:
        kinds = [event.type for event in stream]
        message = stream.get_final_message()
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop" and "input_json" in kinds, kinds
    assert [b.type for b in message.content] == ["text", "tool_use", "tool_use"]
    assert message.content[1].input == {"city": "Shanghai", "date": "2026-12-01"}
    assert message.stop_reason == "tool_use" and message.usage.cache_read_input_tokens == 0
    assert message.usage.cache_creation_input_tokens == 0


def test_responses_follow_previous_response_id_and_tool_choices_are_honoured(shared):
    import anthropic
    import openai
    server = shared("happy-path")
    scenario = find("happy-path")
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    tools = [{"type": "function", "name": t.name, "parameters": t.parameters} for t in scenario.tools]
    first = client.responses.create(model="m", instructions=scenario.system, input=scenario.user, tools=tools,
                                    tool_choice="required")
    calls = [o for o in first.output if o.type == "function_call"]
    assert [c.name for c in calls] == ["get_weather", "search_flights"]
    named = client.responses.create(model="m", instructions=scenario.system, input=scenario.user, tools=tools,
                                    tool_choice={"type": "function", "name": "search_flights"})
    assert [o.name for o in named.output if o.type == "function_call"] == ["search_flights"]  # the turn restricted
    outputs = [{"type": "function_call_output", "call_id": c.call_id, "output": '{"ok": true, "data": "done"}'}
               for c in calls]
    with pytest.raises(openai.BadRequestError) as info:  # the script answers in text next: it cannot comply
        client.responses.create(model="m", previous_response_id=first.id, input=outputs, tools=tools,
                                tool_choice={"type": "function", "name": "get_weather"})
    assert info.value.body["message"].startswith("loopkit scripted server: tool_choice requires a tool call")
    second = client.responses.create(model="m", previous_response_id=first.id, input=outputs, tools=tools)
    assert second.output_text.startswith("Tomorrow"), second.output_text
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model="m", previous_response_id="resp_nobody", input="hi")
    assert info.value.body["message"] == "Previous response with id 'resp_nobody' not found."
    claude = anthropic.Anthropic(base_url=server.url, api_key="k")
    for choice, called in (({"type": "any"}, ["get_weather", "search_flights"]),
                           ({"type": "tool", "name": "get_weather"}, ["get_weather"])):
        message = claude.messages.create(model="m", max_tokens=64, tool_choice=choice, messages=[
            {"role": "user", "content": scenario.user}], tools=[
            {"name": t.name, "input_schema": t.parameters} for t in scenario.tools])
        assert message.stop_reason == "tool_use", choice
        assert [b.name for b in message.content if b.type == "tool_use"] == called, choice


def test_a_client_with_other_tools_still_gets_the_script_and_is_told_which_it_left_out(served):
    import openai
    server = served("happy-path")
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k")
    raw = client.chat.completions.with_raw_response.create(model="m", messages=[{"role": "user", "content": "hi"}],
                                                           tools=[{"type": "function", "function": {"name": "get_weather"}}])
    assert raw.headers["x-loopkit-undeclared-tools"] == "search_flights"
    assert [c.function.name for c in raw.parse().choices[0].message.tool_calls] == ["get_weather", "search_flights"]
    assert server.books()["undeclared_tools"] == {"search_flights": 1}


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_gets_json_a_stream_and_the_services_refusals(shared):
    server = shared("happy-path")

    def curl(path: str, body: dict) -> str:
        return subprocess.run(["curl", "-sS", "-N", server.url + path, "-H", "content-type: application/json",
                               "-H", "authorization: Bearer k", "-d", json.dumps(body)],
                              capture_output=True, text=True, timeout=60, check=True).stdout

    answer = json.loads(curl("/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]}))
    assert answer["object"] == "chat.completion" and answer["usage"]["prompt_tokens_details"] == {"cached_tokens": 0}
    stream = curl("/v1/chat/completions", {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
    assert stream.startswith("data: {") and stream.endswith("data: [DONE]\n\n"), stream[-200:]
    refused = json.loads(curl("/v1/messages", {"model": "m", "messages": [{"role": "user", "content": "hi"}]}))
    assert refused["error"] == {"type": "invalid_request_error", "message": "max_tokens: Field required"}
    refused = json.loads(curl("/v1/messages", {"model": "m", "max_tokens": 9, "messages": [
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}))
    assert refused["error"]["message"] == "role 'system' is not supported on this model"


# ------------------------------------------------------------------ hidden retries, bounds (a server in a thread)

class SaysTooManyFirst:
    """A test double in front of the scripted server: the first `times` requests get 429 with Retry-After: 30."""

    def __init__(self, inner, times: int = 1):
        self.inner, self.left = inner, times

    def respond(self, method, path, headers, content):
        if self.left:
            self.left -= 1
            return 429, {"retry-after": "30", "content-type": "application/json"}, json.dumps(
                {"error": {"message": "Rate limit reached", "type": "requests", "param": None,
                           "code": "rate_limit_exceeded"}}).encode()
        return self.inner.respond(method, path, headers, content)


@pytest.mark.parametrize("wire", ["openai-chat", "anthropic"])
def test_a_hidden_sdk_retry_is_counted_and_its_wait_charged_on_the_simulated_clock(wire):
    app = ServeApp(find("happy-path"))
    app.servers[wire] = SaysTooManyFirst(app.servers[wire])
    with ServeHTTP(app) as http:
        messages = Episode.from_scenario(find("happy-path")).initial_messages()
        turn = adapter(wire, http.base_url).complete(messages, Episode.from_scenario(find("happy-path")).tools.specs)
    assert [c.name for c in turn.tool_calls] == ["get_weather", "search_flights"], "the SDK's own retry got through"
    books = app.books.figures()
    assert books["requests"] == 2 and books["by_status"] == {"200": 1, "429": 1}, books
    assert books["hidden_retries"] == 1 and books["backoff_seconds"] == 30.0 and books["waits_replaced"] == 1, books
    assert books["hidden_retry_input_tokens"] > 200, books


def test_the_wire_says_one_millisecond_and_names_the_scripted_wait():
    import openai
    app = ServeApp(find("happy-path"))
    app.servers["openai-chat"] = SaysTooManyFirst(app.servers["openai-chat"])
    with ServeHTTP(app) as http:
        client = openai.OpenAI(base_url=http.base_url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.RateLimitError) as info:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    headers = info.value.response.headers
    assert headers["retry-after-ms"] == "1" and "retry-after" not in headers, dict(headers)
    assert headers["x-loopkit-scripted-retry-after"] == "30"


def test_requests_are_bounded_in_size_and_rate_and_the_server_listens_on_loopback_only():
    import openai
    with pytest.raises(ValueError, match="not a loopback address"):
        ServeHTTP(ServeApp(find("happy-path")), host="0.0.0.0")
    with ServeHTTP(ServeApp(find("happy-path")), max_bytes=2000, rate=0.001) as http:
        client = openai.OpenAI(base_url=http.base_url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.APIStatusError) as info:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x" * 5000}])
        assert info.value.status_code == 413, info.value
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])  # the burst's 2nd
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])


# ------------------------------------------------------------------ live mode, against loopkit serve

def live(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return subprocess.run([sys.executable, "-m", "reference.cli", "run", "happy-path", *args], cwd=ROOT,
                          env={**clean, **env}, capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # two `loopkit run --live` processes, each importing an SDK (~10 s of CPU); the SDK adapters over HTTP
#                   are the in-process cases above, live mode's own refusals the cases below
def test_live_mode_runs_the_scenarios_tools_against_a_model_behind_the_sdk(served):
    server = served("happy-path")
    done = live(["--live", "openai:gpt-5.4-mini", "--max-cost", "1", "--json"],
                {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url + "/v1"})
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["stop_reason"] == "completed" and record["tool_calls"] == 2, record
    assert record["cost_usd"] == pytest.approx((record["input_tokens"] * 0.75 + record["output_tokens"] * 4.5) / 1e6, abs=1e-6)  # the row rounds
    capped = live(["--live", "anthropic:claude-haiku-4-5", "--max-cost", "0.005"],
                  {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": server.url})
    assert capped.returncode == 4 and "stopped by the cost cap" in capped.stderr, capped.stderr
    assert server.books()["by_status"] == {"200": 2}, "the capped request must never be sent"


def test_live_mode_without_a_key_or_a_cap_refuses_with_a_clear_message(monkeypatch, capsys):
    # the command in this process: each refusal comes before an SDK is imported or a request is made
    for name in [k for k in os.environ if k.startswith(("OPENAI_", "ANTHROPIC_"))]:
        monkeypatch.delenv(name)

    def refused(args: list[str], env: dict[str, str]) -> tuple[int, str]:
        with monkeypatch.context() as scope:
            for name, value in env.items():
                scope.setenv(name, value)
            code = loopkit(["run", "happy-path", *args])
        return code, capsys.readouterr().err

    code, err = refused(["--live", "openai:gpt-5.4-mini", "--max-cost", "1"], {})
    assert code == 2 and "needs OPENAI_API_KEY in the environment" in err, err
    code, err = refused(["--live", "openai:gpt-5.4-mini"], {"OPENAI_API_KEY": "k"})
    assert code == 2 and "--max-cost" in err, err
    code, err = refused(["--live", "openai:gpt-nothing", "--max-cost", "1"], {"OPENAI_API_KEY": "k"})
    assert code == 2 and "no price for 'openai:gpt-nothing'" in err, err


@pytest.mark.parametrize("wire", ["openai-chat", "anthropic"])
def test_a_scripted_provider_fault_is_retried_by_the_sdk_and_charged_as_a_hidden_retry(wire):
    """A `fault: rate_limit` step with Retry-After 30: the SDK's own retry (max_retries=2) gets past it."""
    import anthropic
    import openai
    data = find("happy-path").model_dump(exclude_none=True)
    data["model"]["script"].insert(0, {"fault": "rate_limit", "retry_after_seconds": 30})
    app = ServeApp(parse_scenario(data, "happy-path with a 429 first"))
    with ServeHTTP(app) as http:
        episode = Episode.from_scenario(find("happy-path"))
        client = (openai.OpenAI(base_url=http.base_url + "/v1", api_key="k", max_retries=2) if wire == "openai-chat"
                  else anthropic.Anthropic(base_url=http.base_url, api_key="k", max_retries=2))
        model = OpenAIChatModel(client) if wire == "openai-chat" else AnthropicModel(client)
        turn = model.complete(episode.initial_messages(), episode.tools.specs)
    assert [c.name for c in turn.tool_calls] == ["get_weather", "search_flights"], "the retry got past the fault"
    books = app.books.figures()
    assert books["by_status"] == {"429": 1, "200": 1} and books["hidden_retries"] == 1, books
    assert books["backoff_seconds"] == 30.0, books


def test_a_client_that_answers_through_a_final_answer_tool_gets_the_scripts_answer_as_that_call(shared):
    """smolagents' ToolCallingAgent ends only through its `final_answer` tool and sends tool_choice "required"."""
    import openai
    server = shared("happy-path")
    scenario = find("happy-path")
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    tools = [{"type": "function", "function": {"name": t.name, "parameters": t.parameters}} for t in scenario.tools]
    tools.append({"type": "function", "function": {"name": "final_answer", "parameters": {
        "type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}}})
    messages: list[dict] = [{"role": "user", "content": scenario.user}]
    for _ in range(5):
        message = client.chat.completions.create(model="m", messages=messages, tools=tools,
                                                 tool_choice="required").choices[0].message
        calls = [{"id": c.id, "type": "function", "function": {"name": c.function.name,
                                                               "arguments": c.function.arguments}}
                 for c in message.tool_calls]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages += [{"role": "tool", "tool_call_id": c["id"], "content": '{"ok": true}'} for c in calls]
        if calls[-1]["function"]["name"] == "final_answer":
            break
    assert [c["function"]["name"] for c in calls] == ["final_answer"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"answer": in_process("happy-path", "openai-chat").answer}
    again = client.chat.completions.create(model="m", messages=messages[:-2], tools=tools, tool_choice="required")
    assert again.choices[0].message.tool_calls[0].id == calls[0]["id"], "the same conversation, the same call"

    # replayed, the past final_answer call is the script's answer step: the script has nothing after it
    text = [*messages[:-2], {"role": "assistant", "content": json.loads(calls[0]["function"]["arguments"])["answer"]}]
    follow_up = {"role": "user", "content": "And the day after?"}
    after_call = client.chat.completions.create(model="m", messages=[*messages, follow_up], tools=tools,
                                                tool_choice="none").choices[0].message.content
    after_text = client.chat.completions.create(model="m", messages=[*text, follow_up], tools=tools,
                                                tool_choice="none").choices[0].message.content
    assert after_call == after_text
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="m", messages=[*messages, follow_up], tools=tools)


def test_tool_calls_sent_back_as_text_the_way_smolagents_does_are_replayed_as_the_step_they_were(shared):
    import openai
    server = shared("happy-path")
    scenario = find("happy-path")
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    tools = [{"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
             for name in ("get_weather", "search_flights", "final_answer")]
    messages = [{"role": "user", "content": scenario.user}]
    first = client.chat.completions.create(model="m", messages=messages, tools=tools, tool_choice="required")
    calls = [c.model_dump() for c in first.choices[0].message.tool_calls]
    messages += [{"role": "assistant", "content": f"{first.choices[0].message.content}\nCalling tools:\n{calls}"},
                 {"role": "user", "content": 'Observation:\n{"ok": true}'}]
    second = client.chat.completions.create(model="m", messages=messages, tools=tools, tool_choice="required")
    call = second.choices[0].message.tool_calls[0]
    assert call.function.name == "final_answer"
    assert json.loads(call.function.arguments) == {"answer": in_process("happy-path", "openai-chat").answer}
