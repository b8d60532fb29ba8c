"""The fully guarded loop on the whole catalogue: what lessons 3 and 4 promise, checked scenario by scenario."""
from __future__ import annotations

import pytest

from reference import StopReason, catalogue
from reference.runs.runner import completed, evaluate, run

SCENARIOS = catalogue()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_guarded_loop_meets_the_expect_block(scenario):
    result = run(scenario, "guarded")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed, f"scenario `{scenario.name}` with the guarded loop: " + "; ".join(failed)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.expect.completable],
                         ids=[s.name for s in SCENARIOS if s.expect.completable])
def test_completable_scenario_completes_within_a_quarter_over_the_oracle(scenario):
    result = run(scenario, "guarded")
    assert completed(scenario, result), f"scenario `{scenario.name}`: stopped with {result.stop_reason.value}"
    assert result.model_calls <= 1.25 * scenario.expect.oracle_model_calls, (
        f"scenario `{scenario.name}`: {result.model_calls} model calls, oracle {scenario.expect.oracle_model_calls}")


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if not s.expect.completable],
                         ids=[s.name for s in SCENARIOS if not s.expect.completable])
def test_uncompletable_scenario_stops_with_a_degraded_result(scenario):
    result = run(scenario, "guarded")
    assert result.stop_reason is not StopReason.COMPLETED
    assert result.degraded is not None, f"scenario `{scenario.name}`: no degraded result"
    assert result.answer and "max steps reached" not in result.answer.lower(), (
        f"scenario `{scenario.name}`: the user got {result.answer!r}")


def test_guarded_loop_beats_the_naive_loop_on_the_whole_catalogue():
    naive = [run(s, "react") for s in SCENARIOS]
    guarded = [run(s, "guarded") for s in SCENARIOS]
    assert sum(r.model_calls for r in guarded) < sum(r.model_calls for r in naive)
    assert sum(r.cost_usd for r in guarded) < sum(r.cost_usd for r in naive)
    assert sum(completed(s, r) for s, r in zip(SCENARIOS, guarded)) > sum(
        completed(s, r) for s, r in zip(SCENARIOS, naive))


class FailingProvider:
    """A provider that answers once, then fails as an API does after the SDK's own retries."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def complete(self, messages, tools, *, tool_choice="auto"):
        self.calls += 1
        if self.calls >= 2:
            raise ConnectionError("upstream 503 from api.internal.example:8443")
        return self.inner.complete(messages, tools, tool_choice=tool_choice)


def test_a_failing_provider_ends_the_run_with_an_error_and_a_degraded_result():
    from reference import Episode, find
    from reference.runs.registry import guarded

    episode = Episode.from_scenario(find("paging-legit"))
    episode.model.inner = FailingProvider(episode.model.inner)
    result = guarded(episode, max_steps=8)
    assert result.stop_reason is StopReason.ERROR
    assert result.degraded is not None and "api.internal" not in (result.answer or "")
