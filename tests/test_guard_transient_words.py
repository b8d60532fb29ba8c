"""A failure the standards call transient, however it is framed: a one-line answer carrying one is a failure on a
wire with no error flag; a timeout is known by words that say one happened; an HTTP status answered while a poll
waits longer each time is a state; a call asked before is asked before however many calls ago (a batch reissued
whole); and a name or code a standard gives the failure (PEP 3151, Winsock, getaddrinfo) decides whatever language
follows it."""

import pytest

from reference.diagnosis.logs.chat import says_error
from reference.parts.guards.responses import transient
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.chat_logs import flags, tool
from tests.helpers.field_runs import run_field


@pytest.mark.parametrize("text", ["Failed to send email: connect ECONNREFUSED 10.0.4.12:587",
                                  "could not reach the index: Connection timed out", "HTTP 503"])
def test_one_line_carrying_a_transient_failure_is_a_failure_whatever_its_framing(text):
    assert says_error(text)


@pytest.mark.parametrize("text", [
    "12:00:01 worker: connect ECONNREFUSED 10.0.4.12:587\n12:00:02 worker: retrying\n12:00:03 worker: connected",
    "Sent. Message-ID: <c41e7b90@example.com>", "Errors found: 0", "Error-free run: 12 tests passed",
    "Set timeout.",
    "failed to fetch: HTTP 404 after a timeout"])
def test_a_log_of_many_lines_a_success_or_a_wrong_input_stays_as_it_was(text):
    assert not says_error(text)


@pytest.mark.parametrize("text, passes", [
    ("fetch failed (cause: HeadersTimeoutError: Headers Timeout Error)", True),
    ("Operation timed out", True), ("upstream time-out", True), ("HTTP 503", True), ("HTTP 500", False),
    ("Unknown field name: 'timeout'", False), ("Error: could not find cfg.get('timeout', 30)", False),
    ("invalid option timeout=abc", False), ("Error: request timeout.", True),
    ("the timeout argument must be positive", False)])
def test_a_timeout_is_known_by_words_that_say_one_happened_not_by_words_about_one(text, passes):
    assert transient(text) is passes


@pytest.mark.parametrize("loop, legitimate", [
    ("records-update-refused-a-field-named-timeout", "records-update-timed-out-twice-then-answers"),
    ("health-503-polled-with-the-same-sleep", "health-503-polled-with-growing-sleeps"),
    ("batch-of-six-reads-reissued-whole", "six-listed-incidents-read-in-two-batches"),
])
def test_the_legitimate_run_completes_and_the_loop_is_still_caught(loop, legitimate):
    scenario, result = run_field(legitimate)
    assert completed(scenario, result) and not interventions(result), interventions(result)
    scenario, result = run_field(loop)
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == scenario.expect.stop_reason, (failed, interventions(result))


@pytest.mark.parametrize("text, passes", [
    ("[WinError 10061] No connection could be made because the target machine actively refused it", True),
    ("[WinError 10054] An existing connection was forcibly closed by the remote host", True),
    ("socket.error: WSAETIMEDOUT", True),
    ("ConnectionRefusedError: [Errno 111] Verbindungsaufbau abgelehnt", True),  # the name decides, not the words
    ("BrokenPipeError: [Errno 32] Datenübergabe unterbrochen", True),
    ("socket.gaierror: [Errno -3] Temporary failure in name resolution", True),
    ("getaddrinfo EAI_AGAIN api.internal", True),
    ("ConnectionResetError: HTTP 404 Not Found", False),  # the input is wrong, whatever else it says
    ("the connectionrefusederror field is deprecated", False),  # an exception's name is spelled as Python spells it
    ({"error": {"code": "RESOURCE_EXHAUSTED", "message": "Quota exceeded"}}, False),  # AIP-194: a quota may not pass
])
def test_a_failure_is_transient_by_the_name_or_code_a_standard_gives_it(text, passes):
    assert transient(text if isinstance(text, dict) else {"message": text}) is passes


@pytest.mark.parametrize("refusal", [
    "[WinError 10061] No connection could be made because the target machine actively refused it",
    "ConnectionRefusedError: [Errno 111] Verbindungsaufbau abgelehnt",
    "socket.gaierror: [Errno -3] Temporary failure in name resolution",
])
def test_a_server_still_starting_is_fetched_a_third_time_whatever_system_refused_it(tmp_path, refusal):
    tools = [tool("http_get", "Fetch a URL.", {"readOnlyHint": True}, url="string")]
    url = {"url": "http://localhost:8080/health"}
    steps = [("http_get", url, f"Error: {refusal}", True)] * 2 + [("http_get", url, '{"status": "ok"}')]
    assert flags(tmp_path, tools, "The dev server is starting; fetch its health page once it is up.", steps) == []


@pytest.mark.parametrize("body, passes", [
    ({"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 5"}, True),  # Telegram's
    ({"error": {"statusCode": 503, "message": "busy"}}, True),
    ({"HTTPStatus": "502"}, True),
    ({"message": "You are being rate limited.", "retry_after": 0.5, "global": False}, True),  # RFC 9110's Retry-After
    ({"ok": False, "error_code": 400, "description": "Bad Request: chat not found"}, False),
    ({"error": "Conflict", "count": 429}, False),  # a number under no status's name is no status
    ({"error": {"code": 599, "message": "failed"}}, False),  # no status IANA registers
    ({"error": {"code": "rate_limit_exceeded", "message": "Rate limit reached"}}, False),  # a vendor's own word
    ({"message": "API rate limit exceeded for user ID 1.", "status": "403"}, False),  # a 403: do not repeat
])
def test_an_http_status_is_a_registered_number_under_a_member_named_status_or_code_in_any_spelling(body, passes):
    assert transient(body) is passes


@pytest.mark.parametrize("text, failed", [
    ('Error executing tool get_site: Central API returned 404 Not Found: {"description":"Site not found"}', True),
    ("Fehler beim Aufruf: 403 Forbidden.", True), ("Custom 404 Not Found page - Next.js docs", False),
    ("HTTP 200 OK", False)])
def test_one_line_ending_a_clause_on_an_http_error_status_is_a_failure_in_any_language(text, failed):
    """RFC 9110's code and reason phrase state the failure whatever words frame it; a title naming one states none."""
    assert says_error(text) is failed


@pytest.mark.parametrize("text, passes", [
    ("Too many requests", True), ("Too Many Requests: retry after 5", True), ("Service unavailable, please retry", True),
    ("Error: Bad Gateway.", True), ("Too Many Requests handling is documented in the guide", False),
    ("the service is unavailable", False), ("Service Unavailable; HTTP 404 on /reports", False)])
def test_a_transient_status_said_by_its_reason_phrase_alone_is_that_status(text, passes):
    """RFC 9110 and 6585 pair each status with one reason phrase: the phrase ending a clause of a failure says the
    status; a phrase that goes on names a subject, and a failure that also names a 4xx is the input's fault."""
    assert transient({"message": text}) is passes


@pytest.mark.parametrize("text", ["We back off when the API answers Too Many Requests.", "Service Unavailable"])
def test_a_reason_phrase_without_its_code_in_an_answer_with_no_error_flag_is_no_failure(text):
    """A text that quotes a reason phrase (a runbook's line, a status page's cell) is an answer: only a failure
    already flagged as one is read by the phrase alone."""
    assert not says_error(text)


def test_an_api_that_said_too_many_requests_is_asked_again_after_it(tmp_path):
    tools = [tool("search_issues", "Search the tracker's issues.", {"readOnlyHint": True}, query="string")]
    query = {"query": "label:flaky is:open"}
    steps = [("search_issues", query, "Error: Too Many Requests", True)] * 2 \
        + [("search_issues", query, '{"items": [{"number": 4121, "title": "test_upload flaky on CI"}]}')]
    assert flags(tmp_path, tools, "List the open flaky-test issues.", steps) == []


@pytest.mark.parametrize("text, failed", [
    ('HTTP 429 Too Many Requests\n{"status": "error", "message": "You have reached your limit."}', True),
    ("HTTP/1.1 503 Service Unavailable\nRetry-After: 2\n\n<html>down for maintenance</html>", True),
    ("HTTP/2 404\ncontent-type: application/json\n\n{}", True),
    ("HTTP/1.1 200 OK\ncontent-type: application/json\n\n{}", False),
    ("12:00:01 GET /health\nHTTP/1.1 503 Service Unavailable\n12:00:03 GET /health 200", False),
    ("HTTP 500 errors today: 0\nall requests served", False)])
def test_a_result_opening_on_an_http_error_status_line_is_that_response_whatever_body_follows(text, failed):
    """RFC 9112: a response opens with its status line and its body follows; a log quoting one further down, a
    success's status line, or a line that goes on past the status into words of its own is no failed response."""
    assert says_error(text) is failed


@pytest.mark.parametrize("code, phrase", [
    (422, "Unprocessable Content"), (422, "Unprocessable Entity"), (413, "Content Too Large"),
    (413, "Payload Too Large"), (413, "Request Entity Too Large"), (414, "URI Too Long"),
    (414, "Request-URI Too Long"), (416, "Range Not Satisfiable"), (416, "Requested Range Not Satisfiable")])
def test_an_http_error_status_reads_alike_on_every_python_whichever_rfc_named_its_phrase(code, phrase):
    """Python 3.13 took RFC 9110's phrases for 413, 414, 416 and 422 where 3.10 to 3.12 keep the older ones: both
    are the status on every Python, as a status line's phrase (RFC 9112: ignored) and ending a one-line clause."""
    assert says_error(f'HTTP/1.1 {code} {phrase}\n\n{{"errors": ["title is required"]}}')
    assert says_error(f"HTTP {code} {phrase}\n{{}}")
    assert says_error(f"Error executing tool create_page: API returned {code} {phrase}: {{}}")


@pytest.mark.parametrize("line", ["HTTP/1.1 503 Service Temporarily Unavailable", "HTTP/1.1 520 ",
                                  "HTTP/1.1 429 Rate Limited", "HTTP/1.1 404 Nicht gefunden"])
def test_a_status_line_is_read_by_its_code_whatever_its_reason_phrase(line):
    """RFC 9112 section 4: a client SHOULD ignore the reason-phrase; the code's first digit gives its class."""
    assert says_error(line + "\n\n<html></html>")


def test_a_write_refused_by_a_rate_limit_with_its_body_below_the_status_line_is_retried(tmp_path):
    tools = [tool("update_records", "Update several records in one request.", ids="array", stage="string")]
    args = {"ids": ["18110234", "18110235"], "stage": "won"}
    limited = 'HTTP 429 Too Many Requests\n{"status": "error", "message": "You have reached your secondly limit."}'
    steps = [("update_records", args, limited)] * 2 + [("update_records", args, {"status": "COMPLETE", "updated": 2})]
    assert flags(tmp_path, tools, "Move deals 18110234 and 18110235 to won.", steps) == []


def _shell_429(tmp_path, between: list[tuple], flagged: bool, after: int = 30,
               sends: int = 3) -> list[tuple[int, str, str]]:
    """A request refused 429 with Retry-After: `after`, sent `sends` times in all, `between` each two sends."""
    tools = [tool("run_shell", "Run a shell command.", command="string")]
    fetch = {"command": "curl -sS -i https://api.example.org/works?count=1"}
    refused = (f"HTTP/2 429 \nretry-after: {after}\ncontent-type: application/json\n\n"
               '{"error": "Too Many Requests", "message": "Rate limit exceeded."}')
    refusal = ("run_shell", fetch, refused, True) if flagged else ("run_shell", fetch, refused)
    steps = [refusal]
    for _ in range(sends - 1):
        steps += [*between, refusal]
    tmp_path.mkdir(exist_ok=True)
    return flags(tmp_path, tools, "How many works are listed?", steps)


@pytest.mark.parametrize("flagged", [True, False])
@pytest.mark.parametrize("after", [0, 1, 30])
def test_a_retry_after_only_widens_the_retry_budget_never_narrows_it(tmp_path, flagged, after):
    """RFC 9110: Retry-After says how long the client ought to wait. A log holds no clock and a model's turn takes
    seconds, so a refusal sent again with no wait recorded keeps the budget of any transient failure (three sends;
    the fourth is the repeat), while one sent again after the wait it asked for is the retry it asked for."""
    assert _shell_429(tmp_path / "at_once", [], flagged, after) == []
    assert any(verdict != "" for _, verdict, _ in _shell_429(tmp_path / "fourth", [], flagged, after, sends=4))
    assert _shell_429(tmp_path / "slept", [("run_shell", {"command": f"sleep {after}"}, "")], flagged, after) == []


@pytest.mark.parametrize("phrase", ["Unprocessable Content", "Unprocessable Entity"])
def test_a_failure_that_also_names_a_422_by_either_rfcs_phrase_is_not_transient_on_any_python(phrase):
    """RFC 9110 renamed 422's phrase, and so did Python 3.13's `http.HTTPStatus`: the rule reads both names."""
    assert not transient(f"HTTP 503 upstream; then 422 {phrase}: field x")
