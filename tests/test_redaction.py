"""Nothing internal reaches the model: not through any error path, in any lesson-5 scenario, in any wire.

Exceptions and tool messages holding a stack trace, a file path, SQL, a host name, an IP address, a
connection string with a password and an API key (all fake) are fed through every way a tool call
can fail. The test reads everything the model could see: every tool result in the history, and the
whole body of every request the model received (in the provider's wire format).
"""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import Episode, ToolMessage, find, parse_scenario
from reference.parts.executor.redaction import leaks, safe_code, safe_text
from reference.parts.executor import ResilientExecutor
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts

SECRETS = {
    "stack trace": 'Traceback (most recent call last):\n  File "/srv/app/tools.py", line 12, in run',
    "exception": "psycopg2.OperationalError: could not connect",
    "path": "failed to open /var/lib/orders/cache.db",
    "windows path": r"cannot read C:\Users\svc_orders\config.ini",
    "SQL": "SELECT id, card_last4 FROM orders WHERE id = 7",
    "host": "connection to orders-db-prod-7.internal.example.com refused",
    "ip": "upstream 10.20.3.7 did not answer",
    "host:port": "dial tcp cache-3.prod:6379 timeout",
    "dsn": "postgresql://orders_rw:FAKE-PASSWORD-not-real@db:5432/orders",
    "password": "password=FAKE-PASSWORD-not-real",
    "api key": "api_key: sk-FAKE0000notarealkey0000",
    "bearer": "Authorization: Bearer FAKEtokenFAKEtoken0000",
    "aws key": "AKIAFAKEFAKEFAKEFAKE rejected",
    "private key": "-----BEGIN RSA PRIVATE KEY-----",
}
NEEDLES = ["/srv/app", "psycopg2", "/var/lib/orders", "svc_orders", "SELECT id", "orders-db-prod-7", "10.20.3.7",
           "cache-3.prod", "FAKE-PASSWORD-not-real", "sk-FAKE0000", "FAKEtokenFAKEtoken", "AKIAFAKE", "PRIVATE KEY"]
EVERYTHING = " | ".join(SECRETS.values())
SAFE = ["Invalid value for 'date'.", "Refunds are accepted within 30 days of delivery. Order A1234 was delivered on "
        "2026-10-12.", "Flight MU5138 departs at 08:00.", "Rate limit exceeded: 10 requests per minute.",
        "The city must be given in English, e.g. Shanghai."]


@pytest.mark.parametrize("kind", list(SECRETS))
def test_each_kind_of_internal_detail_is_recognised(kind):
    assert leaks(SECRETS[kind]), f"{kind}: {SECRETS[kind]!r} is not recognised as internal"
    assert safe_text(SECRETS[kind]) is None


@pytest.mark.parametrize("text", SAFE)
def test_actionable_messages_pass(text):
    assert safe_text(text) == text, f"{text!r} was dropped: {leaks(text)}"


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80), st.sampled_from(list(SECRETS.values())), st.text(max_size=80))
def test_a_secret_anywhere_in_a_text_drops_the_whole_text(before, secret, after):
    assert safe_text(before + " " + secret + " " + after) is None


def test_error_codes_must_look_like_codes():
    assert safe_code("REFUND_WINDOW_CLOSED") == "REFUND_WINDOW_CLOSED"
    assert safe_code("AUTH password=FAKE") is None and safe_code("ok; DROP TABLE orders") is None


def visible(episode: Episode, result) -> list[str]:
    seen = [m.content for m in result.messages if isinstance(m, ToolMessage)]
    return seen + [json.dumps(r.wire_body, ensure_ascii=False) for r in episode.scripted.requests]


def assert_nothing_leaked(name: str, episode: Episode, result) -> None:
    for text in visible(episode, result):
        found = [n for n in NEEDLES if n in text]
        assert not found, f"scenario `{name}`: {found} reached the model: {text[:300]}"


def every_error_path(wire: str):
    faults = {"raises": {"fault": "exception", "message": EVERYTHING},
              "times_out": {"fault": "timeout", "timeout_seconds": 1},
              "resets": {"fault": "connection_reset"},
              "limits": {"fault": "rate_limit", "retry_after_seconds": 1, "message": EVERYTHING},
              "breaks": {"fault": "server_error", "message": EVERYTHING},
              "refuses_arg": {"fault": "invalid_argument", "message": EVERYTHING},
              "forbids": {"fault": "permission_denied", "message": EVERYTHING},
              "misses": {"fault": "not_found", "message": EVERYTHING}}
    for i, text in enumerate(SECRETS.values()):  # one secret at a time: a filter that only misses one shows
        faults[f"rejects_{i}"] = {"fault": "business_failure", "message": text, "error_code": text}
        faults[f"says_{i}"] = {"fault": "invalid_argument", "message": text}
    calls = [{"tool": t, "args": {"q": "x"}} for t in faults] + [{"tool": "nope", "args": {"q": "x"}},
                                                                 {"tool": "raises", "args": {"q": 1}}]
    if wire != "anthropic":
        calls.append({"tool": "raises", "raw_args": '{"q": '})
    return parse_scenario({
        "name": "every-error-path", "title": "every error path", "user": "Look it up.", "limits": {"max_steps": 4},
        "tools": [{"name": t, "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                   "rules": [{"result": r}]} for t, r in faults.items()],
        "model": {"wire": wire, "allow_unknown_tools": True,
                  "script": [{"calls": calls}, {"calls": calls}, {"answer": "Sorry."}]},
        "expect": {"completable": False, "stop_reason": ["completed", "circuit_open", "repeated_call"]},
    })


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
def test_no_error_path_leaks_anything_to_the_model(wire):
    scenario = every_error_path(wire)
    episode = Episode.from_scenario(scenario)
    result = guarded_loop(episode, 4, Parts(executor=ResilientExecutor.for_episode(episode)))
    assert result.model_calls >= 2, "the second turn repeats every call: opened circuits answer too"
    assert_nothing_leaked(scenario.name, episode, result)


@pytest.mark.parametrize("name", ["flaky-timeout", "rate-limited", "bad-date-format", "business-failure",
                                  "exception-secret", "tool-down", "schema-mismatch", "malformed-calls"])
def test_no_lesson5_scenario_leaks_anything_to_the_model(name):
    scenario = find(name)
    episode = Episode.from_scenario(scenario)
    result = guarded_loop(episode, scenario.limits.max_steps, Parts(executor=ResilientExecutor.for_episode(episode)))
    assert_nothing_leaked(name, episode, result)


def test_the_secret_scenario_really_holds_secrets():
    """Guard against a vacuous test: the exception's text does contain what the tests look for."""
    text = find("exception-secret").tools[0].rules[0].result.message
    assert all(n in text for n in ["FAKE-PASSWORD-not-real", "orders-db-prod-7", "SELECT", "Traceback"])
