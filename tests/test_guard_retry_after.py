"""When a server told the client to come back (reference/parts/guards/told_when.py): Retry-After in both of RFC
9110's forms wherever the answer carries the response, and a resend judged early only by the server's own Date."""
from __future__ import annotations

import pytest

from tests.helpers.chat_logs import flags, tool

SHELL = [tool("shell", "Run a shell command.", command="string")]


def _refused(seconds: int, dates: list[str]) -> list[tuple]:
    """A 429 with `retry-after: seconds`, sent once for each of the server's Dates (none where a Date is empty)."""
    head = "HTTP/2 429 \n{}content-type: application/json\nretry-after: " + str(seconds) + "\n\n{{}}"
    return [("shell", {"command": "curl -sS -i https://api.example.org/works"},
             head.format(f"date: Tue, 02 Jun 2026 {d} GMT\n" if d else "")) for d in dates]


@pytest.mark.parametrize("seconds, dates, repeated", [
    (30, ["12:00:01", "12:00:01", "12:00:02"], True),  # the server's clock: back within a second of 30
    (1, ["12:00:01", "12:00:03", "12:00:05"], False),  # each send came after the second it was asked to wait
    (30, ["", "", ""], False),  # no clock in the log: a Retry-After only widens the budget
    (0, ["12:00:01", "12:00:01", "12:00:01"], False)])  # RFC 9110: Retry-After 0 asks for no wait at all
def test_a_refusal_is_early_only_by_the_servers_own_date(tmp_path, seconds, dates, repeated):
    """RFC 9110 section 6.6.1: the Date says when the server answered; a refusal sent again whose next Date comes
    before the first plus its Retry-After came sooner than it was told, and is no retry."""
    found = flags(tmp_path, SHELL, "How many works are listed?", _refused(seconds, dates))
    assert (("intervene", "repeated_call") in [(v, r) for _, v, r in found]) is repeated, found


@pytest.mark.parametrize("content, seconds", [
    ({"output": "HTTP/1.1 503 Service Unavailable\nDate: Wed, 02 Dec 2026 15:00:00 GMT\n"
                "Retry-After: Wed, 02 Dec 2026 15:00:05 GMT\n"}, 5.0),  # an HTTP-date, from the response's Date
    ({"output": "HTTP/1.1 503 Service Unavailable\nRetry-After: Wed, 02 Dec 2026 15:00:05 GMT\n"}, None),  # no Date
    ({"output": "HTTP 429 Too Many Requests\nRetry-After: 2\n"}, 2.0),  # the status line as some clients print it
    ({"status": 429, "headers": {"Retry-After": "2"}, "body": {"message": "You are being rate limited."}}, 2.0),
    ({"statusCode": 503, "headers": {"retry-after": "120"}}, 120.0),
    ({"status": 200, "headers": {"Retry-After": "2"}}, None),  # no refusal: nothing was asked
])
def test_retry_after_is_read_in_both_rfc_forms_wherever_the_answer_carries_the_response(content, seconds):
    """RFC 9110 section 10.2.3: Retry-After is delay-seconds or an HTTP-date, a header field read by its name."""
    from types import SimpleNamespace

    from reference.parts.guards.told_when import retry_after
    assert retry_after(SimpleNamespace(content=content)) == seconds


def test_a_refusal_carried_as_members_and_waited_out_as_told_is_the_retry_asked_for(tmp_path):
    tools = [tool("fetch", "Fetch a URL.", url="string"), tool("wait", "Pause.", seconds="integer")]
    refused = {"status": 429, "headers": {"Retry-After": "2"}, "body": {"message": "You are being rate limited."}}
    fetch = ("fetch", {"url": "https://discord.com/api/v10/channels/1/messages"}, refused, True)
    steps = [fetch, *[step for _ in range(3) for step in (("wait", {"seconds": 2}, ""), fetch)]]
    assert flags(tmp_path, tools, "Get the channel's last messages.", steps) == []
