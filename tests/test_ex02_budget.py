"""Exercise 2: the budget. Run against solutions/ by default; `--target exercises` for yours.

Every run here is the guarded loop with only your budget switched on
(`guarded_loop(episode, max_steps, Parts(budget=your_budget))`), on the budget scenarios of the
catalogue: token-blowup, cost-blowup, slow-tools and the 40-step incident.
"""
from __future__ import annotations

import pytest

from reference import Episode, StopReason, ToolCall, Usage, find, parse_scenario, to_wire
from reference.parts.budget import policy_for
from reference.sandbox.grading import run_candidate
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.loops.react import react_loop
from reference.sim.tokens import request_tokens
from tests.helpers.targets import load_exercise

WIRES = ["openai-chat", "openai-responses", "anthropic"]
MAX_RESERVE = 4096  # the most a sensible budget keeps for one answer (a typical max_tokens)


@pytest.fixture
def ex(target):
    return load_exercise(target, "ex02_budget")


def troubleshoot_tier(ex):
    """The learner's Budget with the limits of reference/parts/budget.py's troubleshoot tier."""
    tier = policy_for("troubleshoot")
    return lambda episode: ex.Budget(tier.max_steps, tier.max_run_tokens, tier.max_seconds, tier.max_cost_usd)


def limits_of(scenario_name: str) -> dict:
    """The limits each scenario runs under in these tests."""
    if scenario_name == "incident-40-step":
        tier = policy_for("troubleshoot")
        return {"max_steps": tier.max_steps, "max_run_tokens": tier.max_run_tokens, "max_seconds": tier.max_seconds,
                "max_cost_usd": tier.max_cost_usd}
    return find(scenario_name).limits.model_dump(exclude_none=True)


def run_with(ex, scenario, make=None, max_steps: int | None = None, wire: str | None = None, sandbox=True):
    """Run the scenario with the guarded loop and the learner's budget (by default from the scenario's limits)."""
    if make is None and scenario == "incident-40-step":
        make = troubleshoot_tier(ex)

    def budgeted_loop(episode, max_steps):
        budget = make(episode) if make else ex.Budget.from_limits(episode.limits)
        return guarded_loop(episode, max_steps, Parts(budget=budget))

    attempt = run_candidate(budgeted_loop, scenario, max_steps, wire=wire, sandbox=sandbox)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    return attempt.result


def spent(result) -> str:
    return (f"{result.model_calls} model calls, {result.usage.total_tokens:,} tokens, ${result.cost_usd:.4f}, "
            f"{result.sim_seconds:.1f} simulated seconds")


def names(detail: str | None, word: str, value: float) -> bool:
    """Does the detail name the limit: its kind (a word) and its value (in any usual spelling)?"""
    if not detail or word not in detail.lower():
        return False
    forms = {f"{value:g}", repr(value), f"{value:.4f}"}
    if float(value).is_integer():
        forms |= {f"{int(value):,}", str(int(value)), f"{int(value):_}", f"{int(value):,}".replace(",", " ")}
    return any(f in detail for f in forms)


def cumulative(result, meter: str) -> list[float]:
    """The meter after each model request, tool time included for seconds."""
    pricing = find(result.scenario).model.pricing
    out, total = [], 0.0
    for i, s in enumerate(result.steps):
        if meter == "tokens":
            total += s.input_tokens + s.output_tokens
        elif meter == "cost_usd":
            total += (s.input_tokens * pricing.input_per_mtok + s.output_tokens * pricing.output_per_mtok) / 1e6
        out.append(total)
    return out


# ---------------------------------------------------------------- the right limit trips

def test_token_blowup_stops_on_the_token_budget(ex):
    result = run_with(ex, "token-blowup")
    assert result.stop_reason is StopReason.TOKEN_BUDGET, (
        f"scenario `token-blowup`: stop reason {result.stop_reason.value} after {spent(result)}; the limits were "
        "max_steps 12 and max_run_tokens 60,000. Every request sends the growing logs again, so the tokens (input and "
        "output) must trip the budget long before the step limit.")


def test_cost_blowup_stops_on_the_cost_budget(ex):
    result = run_with(ex, "cost-blowup")
    assert result.stop_reason is StopReason.COST_BUDGET, (
        f"scenario `cost-blowup`: stop reason {result.stop_reason.value} after {spent(result)}; the limits were "
        "max_steps 10 and max_cost_usd 0.25. A premium model reading huge exports crosses the cost budget in a few "
        "steps: the bill, not the step count, is the exit that matters here.")


def test_slow_tools_stops_before_the_slow_tool_runs(ex):
    result = run_with(ex, "slow-tools")
    reports = [t for s in result.steps for t in s.tools]
    assert result.stop_reason is StopReason.TIME_BUDGET, (
        f"scenario `slow-tools`: stop reason {result.stop_reason.value} after {spent(result)}; the limit was "
        f"max_seconds 60 and each regional report takes 20 s of tool time. The clock counts tool time as well as "
        "model time; the budget must watch both.")
    assert result.sim_seconds <= 60, (
        f"scenario `slow-tools`: the run took {result.sim_seconds:.1f} simulated seconds, over max_seconds 60: report "
        f"{len(reports)} was started at {reports[-1].started:.1f} s although each earlier report took "
        f"{reports[0].seconds:.1f} s of tool time. Check before each tool run, with that tool's earlier runs in mind.")
    assert len(reports) == 2, (
        f"scenario `slow-tools`: {len(reports)} reports ran; with 20 s each and a 60 s budget, the third cannot fit "
        "and must not be started")


def test_incident_stops_on_a_budget_within_ten_model_calls(ex):
    result = run_with(ex, "incident-40-step")
    tier = limits_of("incident-40-step")
    assert result.stop_reason in (StopReason.TOKEN_BUDGET, StopReason.COST_BUDGET), (
        f"scenario `incident-40-step` under the troubleshoot tier {tier}: stop reason {result.stop_reason.value} "
        f"after {spent(result)}. The deployment allowed 50 steps and no budget; the tier's token and cost budgets "
        "should stop the run before its step limit.")
    assert result.model_calls <= 10, (
        f"scenario `incident-40-step` under the troubleshoot tier {tier}: {result.model_calls} model calls (at most "
        "10 expected)")


def test_step_limit_trips_as_max_steps_and_says_so(ex):
    result = run_with(ex, "repeat-exact", make=lambda episode: ex.Budget(max_steps=3), max_steps=8)
    assert (result.stop_reason, result.model_calls) == (StopReason.MAX_STEPS, 3), (
        f"scenario `repeat-exact` with Budget(max_steps=3) and the loop's own fuse at 8: stop reason "
        f"{result.stop_reason.value} after {result.model_calls} model calls; the budget's step limit should stop it "
        "after 3")
    assert names(result.detail, "step", 3), (
        f"scenario `repeat-exact`: the detail {result.detail!r} should name the step limit and its value (3)")


# ---------------------------------------------------------------- it never overshoots, and does not stop early

@pytest.mark.parametrize("name", ["token-blowup", "cost-blowup", "incident-40-step"])
def test_never_overshoots_when_the_next_request_would(ex, name):
    result = run_with(ex, name)
    limits = limits_of(name)
    for meter, key, value in (("tokens", "max_run_tokens", result.usage.total_tokens),
                              ("cost_usd", "max_cost_usd", result.cost_usd)):
        limit = limits.get(key)
        if limit is None or value <= limit:
            continue
        fmt = (lambda v: f"{v:,.0f}") if meter == "tokens" else (lambda v: f"${v:.4f}")  # noqa: E731
        after = cumulative(result, meter)
        k = next(i for i, v in enumerate(after) if v > limit)
        before = after[k - 1] if k else 0
        pytest.fail(
            f"scenario `{name}`: {meter} {fmt(value)} > {key} {fmt(limit)}: an overshoot. Request {k + 1} was sent "
            f"with {fmt(before)} already used and added {fmt(after[k] - before)} on its own; its estimate, made before "
            "it was sent, would have shown that it crossed the limit. Check before the request, with that request in "
            "mind, not after it.", pytrace=False)


@pytest.mark.parametrize("wire", WIRES)
def test_does_not_stop_while_the_next_request_still_fits(ex, wire):
    result = run_with(ex, "token-blowup", wire=wire)
    if result.stop_reason is not StopReason.TOKEN_BUDGET:
        pytest.fail(f"scenario `token-blowup` ({wire}): stop reason {result.stop_reason.value}, expected token_budget",
                    pytrace=False)
    episode = Episode.from_scenario(find("token-blowup"))
    next_input = request_tokens(to_wire(result.messages, episode.tools.specs, wire))
    used = result.usage.total_tokens
    assert used + next_input + MAX_RESERVE > 60_000, (
        f"scenario `token-blowup` ({wire}): stopped early, with {used:,} tokens used when the next request needed "
        f"{next_input:,} input tokens (+ at most {MAX_RESERVE:,} for its answer) and the budget was 60,000: a budget "
        "that stops while the next step still fits cuts good runs short")


@pytest.mark.parametrize("wire", WIRES)
def test_next_request_estimate_covers_what_the_provider_bills(ex, wire):
    scenario = find("token-blowup")
    scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
    episode = Episode.from_scenario(scenario)
    budget = ex.Budget(max_run_tokens=60_000)
    reserve = budget.output_reserve
    pricing = episode.ledger.pricing
    messages = episode.initial_messages()
    for k in range(1, 6):
        estimate = budget.next_request(episode, messages)
        schemas = (request_tokens(to_wire(messages, episode.tools.specs, wire))
                   - request_tokens(to_wire(messages, [], wire)))
        turn = episode.model.complete(messages, episode.tools.specs)
        billed = turn.usage
        assert billed.total_tokens <= estimate.tokens <= billed.total_tokens + MAX_RESERVE, (
            f"scenario `token-blowup` ({wire}): the estimate for request {k} was {estimate.tokens:,} tokens; the "
            f"provider billed {billed.total_tokens:,} ({billed.input_tokens:,} input, {billed.output_tokens} output). "
            "Count the whole request as it is sent (every message and the tool schemas, in its wire format), plus a "
            "reserve for the answer.")
        assert estimate.tokens == billed.input_tokens + reserve, (
            f"scenario `token-blowup` ({wire}): the estimate for request {k} was {estimate.tokens:,} tokens, "
            f"{estimate.tokens - reserve:,} of them input besides the output reserve ({reserve}); the provider billed "
            f"{billed.input_tokens:,} input tokens, and the tool schemas, sent again with every request, are "
            f"{schemas:,} of them. Count the input with the provider's counter (`request_tokens` over "
            "`to_wire(messages, episode.tools.specs, wire)`), then add `output_reserve`.")
        expected = pricing.cost(Usage(billed.input_tokens, reserve))
        assert estimate.cost_usd == pytest.approx(expected, rel=1e-9, abs=1e-12), (
            f"scenario `token-blowup` ({wire}): the cost estimate for request {k} was ${estimate.cost_usd:.6f}; "
            f"{billed.input_tokens:,} input tokens at ${pricing.input_per_mtok:g}/Mtok plus the {reserve} reserved "
            f"output tokens at ${pricing.output_per_mtok:g}/Mtok come to ${expected:.6f}. Price the reserved answer "
            "at the output rate, not the input rate: `pricing.cost(Usage(input, reserve))`.")
        messages.append(turn.message)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)


def test_spent_reads_the_ledger_and_the_clock(ex):
    """spent() after each request of a real run: the harness's books, input and output tokens, tool time too."""
    episode = Episode.from_scenario(find("slow-tools"))
    budget = ex.Budget()
    messages = episode.initial_messages()
    for k in range(1, 4):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)
        ledger, got = episode.ledger, budget.spent(episode)
        usage = ledger.usage
        assert got.steps == len(ledger.steps), (
            f"scenario `slow-tools`: after {k} model requests spent().steps is {got.steps}")
        assert got.tokens == usage.total_tokens, (
            f"scenario `slow-tools`: after {k} model requests spent().tokens is {got.tokens:,}; the ledger has "
            f"{usage.input_tokens:,} input + {usage.output_tokens:,} output = {usage.total_tokens:,} tokens. "
            "The model's output tokens count too: they are billed, and at the higher rate.")
        assert got.seconds == pytest.approx(episode.clock.elapsed), (
            f"scenario `slow-tools`: after {k} model requests spent().seconds is {got.seconds:.1f}; the clock says "
            f"{episode.clock.elapsed:.1f} s (model time and tool time)")
        assert got.cost_usd == pytest.approx(ledger.cost_usd, rel=1e-9, abs=1e-12), (
            f"scenario `slow-tools`: after {k} model requests spent().cost_usd is ${got.cost_usd:.6f}; the ledger "
            f"says ${ledger.cost_usd:.6f}")


# A model that takes 18 simulated seconds per request, with fast tools: here the model is what is slow.
SLOW_MODEL = parse_scenario({
    "name": "slow-model",
    "title": "A slow model against a time budget",
    "user": "Find out why checkout failed last night.",
    "limits": {"max_steps": 8, "max_seconds": 60},
    "tools": [{"name": "search_logs", "latency_seconds": 0.5,
               "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
               "rules": [{"result": {"data": {"hits": 0}}}]}],
    "model": {"latency": {"base_seconds": 18, "per_output_token_seconds": 0, "per_input_token_seconds": 0},
              "script": [{"call": {"tool": "search_logs", "args": {"query": q}}}
                         for q in ("checkout error", "payment timeout", "gateway 502", "cart 500", "db lock")]
              + [{"answer": "No log line explains the failure."}]},
    "expect": {"completable": False, "stop_reason": "time_budget", "seconds": {"max": 60}},
}, source="tests/test_ex02_budget.py:SLOW_MODEL")


def test_slow_model_trips_the_time_budget_before_the_request(ex):
    result = run_with(ex, SLOW_MODEL)
    assert result.stop_reason is StopReason.TIME_BUDGET and result.sim_seconds <= 60, (
        f"inline scenario `slow-model`: stop reason {result.stop_reason.value} after {spent(result)}; the limit was "
        "max_seconds 60 and every model request took 18 s of model time (each tool run 0.5 s). The next request "
        "takes time too: estimate it from the earlier requests' model time (`StepRecord.model_seconds`), or the run "
        "starts a request it has no time for.")
    assert result.model_calls == 3, (
        f"inline scenario `slow-model`: {result.model_calls} model calls; three requests (55.5 s) fit in 60 s, a "
        "fourth (18 s more) does not")


# ---------------------------------------------------------------- it says which limit tripped

@pytest.mark.parametrize("name", ["token-blowup", "cost-blowup", "slow-tools", "incident-40-step"])
def test_detail_names_the_limit_that_tripped(ex, name):
    result = run_with(ex, name)
    limits = limits_of(name)
    which = {StopReason.TOKEN_BUDGET: ("token", "max_run_tokens"), StopReason.COST_BUDGET: ("cost", "max_cost_usd"),
             StopReason.TIME_BUDGET: ("time", "max_seconds"), StopReason.MAX_STEPS: ("step", "max_steps")}
    if result.stop_reason not in which or limits.get(which[result.stop_reason][1]) is None:
        pytest.fail(f"scenario `{name}`: stop reason {result.stop_reason.value} after {spent(result)}, not one of its "
                    f"limits ({limits})", pytrace=False)
    word, key = which[result.stop_reason]
    assert names(result.detail, word, limits[key]), (
        f"scenario `{name}`: stopped on {result.stop_reason.value} with detail {result.detail!r}; the detail should "
        f"name the limit ('{word}') and its value ({limits[key]:,}), so that whoever reads the trace knows which gate "
        "closed")


# ---------------------------------------------------------------- the happy path is unaffected

def test_happy_path_is_unaffected(ex):
    plain = react_loop(Episode.from_scenario(find("happy-path")), max_steps=8)
    generous = lambda episode: ex.Budget(max_steps=8, max_run_tokens=60_000, max_seconds=60, max_cost_usd=0.25)  # noqa: E731
    for label, make in (("the scenario's limits", None), ("generous budgets", generous)):
        result = run_with(ex, "happy-path", make=make)
        assert result.stop_reason is StopReason.COMPLETED, (
            f"scenario `happy-path` with {label}: stop reason {result.stop_reason.value} ({result.detail}) after "
            f"{spent(result)}; a two-call task far inside every limit must complete")
        assert (result.answer, result.model_calls, result.usage) == (plain.answer, plain.model_calls, plain.usage), (
            f"scenario `happy-path` with {label}: the budget changed the run ({spent(result)}; without a budget: "
            f"{spent(plain)})")


# ---------------------------------------------------------------- kinds of wrong answer found by mutation testing

# Three tools with different speeds: two slow exports (20 s each) and a quick status check (0.5 s).
SPEEDS = parse_scenario({
    "name": "three-speeds",
    "title": "Tools with different speeds under one time budget",
    "user": "Why did the nightly export fail?",
    "limits": {"max_steps": 8, "max_seconds": 60},
    "tools": [{"name": name, "latency_seconds": seconds,
               "parameters": {"type": "object", "properties": {}},
               "rules": [{"result": {"data": {name: "ok"}}}]}
              for name, seconds in (("export_logs", 20), ("search_archive", 20), ("get_status", 0.5))],
    "model": {"latency": {"base_seconds": 0.5, "per_output_token_seconds": 0, "per_input_token_seconds": 0},
              "script": [{"call": {"tool": "export_logs", "args": {}}},
                         {"call": {"tool": "search_archive", "args": {}}},
                         {"call": {"tool": "get_status", "args": {}}},
                         {"answer": "The export is fine now; the archive shows one failed night."}]},
    "expect": {"completable": True, "stop_reason": "completed"},
}, source="tests/test_ex02_budget.py:SPEEDS")


# The same tools, fast this time, under a tight time budget: what a run learns of a tool's speed is its own.
SPEEDS_FAST = parse_scenario({
    **SPEEDS.model_dump(mode="json", exclude_none=True),
    "name": "three-speeds-fast",
    "title": "The same tools, all fast, under a tight time budget",
    "limits": {"max_steps": 8, "max_seconds": 10},
    "tools": [{**tool, "latency_seconds": 1} for tool in SPEEDS.model_dump(mode="json", exclude_none=True)["tools"]],
}, source="tests/test_ex02_budget.py:SPEEDS_FAST")
# ...after a run whose slow export ran twice (a budget has seen its time by the second call).
SPEEDS_EXPORT_TWICE = parse_scenario({
    **SPEEDS.model_dump(mode="json", exclude_none=True),
    "name": "three-speeds-export-twice",
    "model": {**SPEEDS.model_dump(mode="json", exclude_none=True)["model"],
              "script": [{"call": {"tool": "export_logs", "args": {}}}, {"call": {"tool": "export_logs", "args": {}}},
                         {"answer": "The export failed twice the same way."}]},
}, source="tests/test_ex02_budget.py:SPEEDS_EXPORT_TWICE")


def drive(episode: Episode, requests: int) -> list:
    """Send `requests` model requests by hand, running every tool call; returns the history."""
    messages = episode.initial_messages()
    for _ in range(requests):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)
    return messages


def test_each_tool_is_timed_by_its_own_earlier_runs(ex):
    result = run_with(ex, SPEEDS)
    assert result.stop_reason is StopReason.COMPLETED, (
        f"inline scenario `three-speeds`: stop reason {result.stop_reason.value} ({result.detail}) after "
        f"{spent(result)}. After two 20-s exports, 41.5 s are used of 60; the 0.5-s status check fits. A tool is "
        "expected to take as long as *its own* earlier runs, not those of other tools.")
    episode = Episode.from_scenario(SPEEDS)
    budget = ex.Budget()
    drive(episode, 2)
    seconds = {name: budget.tool_seconds(episode, name) for name in ("export_logs", "search_archive", "get_status")}
    assert seconds == {"export_logs": 20, "search_archive": 20, "get_status": 0}, (
        f"inline scenario `three-speeds` after two requests: tool_seconds gave {seconds}; each tool's slowest "
        "earlier run, 0 for a tool that has not run yet")


def test_next_request_is_one_step_and_the_first_takes_no_time(ex):
    episode = Episode.from_scenario(SPEEDS)
    nxt = ex.Budget().next_request(episode, episode.initial_messages())
    assert (nxt.steps, nxt.seconds) == (1, 0), (
        f"inline scenario `three-speeds`, before the first request: next_request gave {nxt.steps} step(s) and "
        f"{nxt.seconds} s; one request is one step, and with no earlier request its time is 0")


def test_a_request_or_tool_that_exactly_fills_a_limit_may_run(ex):
    episode = Episode.from_scenario(find("slow-tools"))
    messages = episode.initial_messages()
    probe = ex.Budget()
    tokens = request_tokens(to_wire(messages, episode.tools.specs, episode.scenario.model.wire)) + probe.output_reserve
    cost = episode.ledger.pricing.cost(Usage(tokens - probe.output_reserve, probe.output_reserve))
    for field, exact, reason in (("max_run_tokens", tokens, StopReason.TOKEN_BUDGET),
                                 ("max_cost_usd", cost, StopReason.COST_BUDGET)):
        assert ex.Budget(**{field: exact}).before_request(episode, messages, 0) is None, (
            f"scenario `slow-tools`, first request: {field}={exact} is exactly what it needs; a limit is crossed "
            "only when it would be exceeded")
        less = exact - 1 if field == "max_run_tokens" else exact * (1 - 1e-6)
        trip = ex.Budget(**{field: less}).before_request(episode, messages, 0)
        assert trip is not None and trip.reason is reason, f"scenario `slow-tools`: {field}={less} must trip {reason.value}"
    messages = drive(episode, 1)  # one request, then the 20-s report
    used, model = episode.clock.elapsed, max(s.model_seconds for s in episode.ledger.steps)
    assert ex.Budget(max_seconds=used + model).before_request(episode, messages, 1) is None, (
        f"scenario `slow-tools`, second request: {used:.2f} s used + {model:.2f} s expected is exactly max_seconds; "
        "that still fits")
    call = ToolCall("call_probe", "regional_sales_report", '{"region": "east"}')
    assert ex.Budget(max_seconds=used + 20).before_tool(episode, call) is None, (
        f"scenario `slow-tools`: {used:.2f} s used + the report's 20 s is exactly max_seconds; the report fits")
    trip = ex.Budget(max_seconds=used + 19.5).before_tool(episode, call)
    assert trip is not None and trip.reason is StopReason.TIME_BUDGET, "a 20-s report does not fit in 19.5 s"


@pytest.mark.parametrize("field, reason", [("max_steps", StopReason.MAX_STEPS),
                                           ("max_run_tokens", StopReason.TOKEN_BUDGET),
                                           ("max_cost_usd", StopReason.COST_BUDGET),
                                           ("max_seconds", StopReason.TIME_BUDGET)])
def test_a_limit_of_zero_stops_before_the_first_request(ex, field, reason):
    result = run_with(ex, "happy-path", make=lambda episode: ex.Budget(**{field: 0}))
    assert (result.stop_reason, result.model_calls) == (reason, 0), (
        f"scenario `happy-path` with Budget({field}=0): stop reason {result.stop_reason.value} after "
        f"{spent(result)}; zero is a limit, not 'no limit' (that is None)")


def test_with_no_time_left_nothing_starts(ex):
    episode = Episode.from_scenario(SPEEDS)
    messages = drive(episode, 2)  # two requests, two 20-s exports
    used = episode.clock.elapsed
    limit = float(repr(used))  # the same number, read from a configuration: never the same object
    call = ToolCall("call_probe", "get_status", "{}")  # not run yet: expected to take no time
    trip = ex.Budget(max_seconds=limit).before_tool(episode, call)
    assert trip is not None and trip.reason is StopReason.TIME_BUDGET, (
        f"inline scenario `three-speeds`: {used:.2f} s used of max_seconds={used:.2f}; a tool that has not run yet is expected to "
        "take no time, but nothing takes none: with no time left, no tool starts")
    trip = ex.Budget(max_seconds=limit).before_request(episode, messages, 1)
    assert trip is not None and trip.reason is StopReason.TIME_BUDGET, (
        f"inline scenario `three-speeds`: {used:.2f} s used of max_seconds={used:.2f}: with no time left, no request "
        "starts")


def test_the_step_limit_trips_when_already_past_it(ex):
    episode = Episode.from_scenario(find("happy-path"))
    messages = drive(episode, 2)
    trip = ex.Budget(max_steps=1).before_request(episode, messages, 2)
    assert trip is not None and trip.reason is StopReason.MAX_STEPS, (
        "scenario `happy-path`: 2 requests made and max_steps=1: the limit is passed, the budget must say so")


def test_the_step_limit_counts_the_requests_in_the_ledger(ex):
    episode = Episode.from_scenario(find("repeat-exact"))
    messages = drive(episode, 3)
    trip = ex.Budget(max_steps=3).before_request(episode, messages, 0)
    assert trip is not None and trip.reason is StopReason.MAX_STEPS, (
        "scenario `repeat-exact`: 3 requests in the ledger, max_steps=3, and a loop whose own count says step 0 (it "
        "counts per user turn, say): the step limit counts the run's requests, in the ledger, whatever `step` says")


def test_two_runs_in_one_process_share_nothing(ex, target):
    def outline(result):
        return (result.stop_reason, result.model_calls, result.tool_calls, round(result.sim_seconds, 6))
    # in this process, as a service runs its loop: a fork per run would start each from a fresh module
    first = [outline(run_with(ex, name, sandbox="in-process")) for name in ("slow-tools", SPEEDS, "slow-tools")]
    fresh = load_exercise(target, "ex02_budget")
    again = [outline(run_with(fresh, name, sandbox="in-process")) for name in ("slow-tools", SPEEDS, "slow-tools")]
    assert first[0] == first[2] == again[0] and first[1] == again[1], (
        f"slow-tools, three-speeds and slow-tools again in one process gave {first}; fresh runs gave {again}: "
        "one run's budget must not carry anything into the next")
    after_slow = [outline(run_with(ex, name, sandbox="in-process")) for name in (SPEEDS_EXPORT_TWICE, SPEEDS_FAST)][1]
    alone = outline(run_with(load_exercise(target, "ex02_budget"), SPEEDS_FAST, sandbox="in-process"))
    assert after_slow == alone, (
        f"three-speeds-fast (the same tools at 1 s, 10 s of budget) run right after a run that called a 20 s tool twice, in one "
        f"process gave {after_slow}; run alone it gives {alone}: what one run measured of a tool's speed must not "
        "carry into the next run's estimates")
