"""A failure's kind (reference/parts/guards/failures.py): two failures of a tool are one kind when they carry the
same standard codes and say the same words once the words either call sent are left out. A query debugged through
distinct errors is progress; guesses each answered the same refusal are not. Judged in shadow mode on conversations
in the chat-log format, the path `loopkit diagnose` takes."""
from __future__ import annotations

import json

import pytest

from reference.parts.guards.failures import alike, failure
from tests.helpers.chat_logs import flags, tool as _tool

SQL = [_tool("run_sql", "Run a SQL query against the warehouse.", query="string")]
QUERIES = ["SELECT SUM(amount) FORM orders", "SELECT SUM(amout) FROM orders", "SELECT SUM(amount) FROM order",
           "SELECT SUM(note) FROM orders"]
ERRORS = ['ERROR: syntax error at or near "FORM"', 'ERROR: column "amout" does not exist',
          'ERROR: relation "order" does not exist', "ERROR: function sum(text) does not exist"]
SQLSTATES = ["42601", "42703", "42P01", "42883"]


@pytest.mark.parametrize("framing", [
    lambda text, code: text,  # an MCP server's isError text
    lambda text, code: {"error": {"code": code, "message": text}},  # an error object with its SQLSTATE
    lambda text, code: {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": text}},  # one JSON-RPC code
])
def test_a_query_debugged_through_distinct_errors_is_progress(tmp_path, framing):
    steps = [("run_sql", {"query": q}, framing(e, c), True) for q, e, c in zip(QUERIES, ERRORS, SQLSTATES)]
    steps.append(("run_sql", {"query": "SELECT SUM(amount) FROM orders"}, [{"sum": 18230.5}]))
    assert flags(tmp_path, SQL, "What was the total order amount last week?", steps) == []


def test_columns_guessed_one_after_another_are_one_kind_of_failure_and_stopped(tmp_path):
    guesses = ["session_id", "started_at", "start_time", "created", "timestamp", "begin_ts"]
    steps = [("run_sql", {"query": f"SELECT COUNT(*) FROM sessions WHERE {g} >= date('now','-7 days')"},
              f"Error: no such column: {g}", True) for g in guesses]
    found = flags(tmp_path, SQL, "How many chat sessions did I start last week?", steps)
    assert ("stop", "no_progress") in [(v, r) for _, v, r in found], found


ORDERS = [_tool("get_order", "Look up an order by its number.", order_id="string")]


@pytest.mark.parametrize("answer", ["order {} not found",
                                    {"error": {"code": 404, "message": "Order {} not found (request req_{}a9)"}}])
def test_ids_guessed_one_after_another_are_one_kind_of_failure_and_stopped(tmp_path, answer):
    ids = [f"W28000{n:02d}" for n in range(1, 7)]
    steps = [("get_order", {"order_id": i}, answer.format(i) if isinstance(answer, str) else json.loads(
        json.dumps(answer).replace("{}", i)), True) for i in ids]
    found = flags(tmp_path, ORDERS, "Find my order, the one from last spring.", steps)
    assert ("stop", "no_progress") in [(v, r) for _, v, r in found], found


TOKENS = ["abcdef", "ghijkl", "mnopqr", "stuvwx", "yzabcd", "efghij"]


@pytest.mark.parametrize("member", ["request_id", "trace_id", "traceId"])
def test_a_random_token_of_letters_the_response_carries_is_no_word_of_the_failures_kind(tmp_path, member):
    """A request's own identifier, letters only and new on every failure, leaves ids guessed one after another one
    kind of failure: they are stopped as guessing."""
    ids = [f"W28000{n:02d}" for n in range(1, 7)]
    steps = [("get_order", {"order_id": i}, {"error": f"order {i} not found", member: t}, True)
             for i, t in zip(ids, TOKENS)]
    found = flags(tmp_path, ORDERS, "Find my order, the one from last spring.", steps)
    assert ("stop", "no_progress") in [(v, r) for _, v, r in found], found
    assert alike(failure({"error": "order not found", member: "abcdef"}, {"id": "W1"}),
                 failure({"error": "order not found", member: "ghijkl"}, {"id": "W2"}))


@pytest.mark.parametrize("member", ["ref", "reqId", "x_amzn_trace"])
def test_a_word_new_on_every_failure_beside_the_same_refusal_of_each_guess_is_the_responses(tmp_path, member):
    """Whatever its name, a one-word member that moved alone to a word it never took before, twice in a row, beside
    the same refusal of each guess ("order <the guess> not found"), is the response's: ids guessed one after another
    are one kind of failure and stopped."""
    ids = [f"W28000{n:02d}" for n in range(1, 7)]
    steps = [("get_order", {"order_id": i}, {"error": f"order {i} not found", member: t}, True)
             for i, t in zip(ids, TOKENS)]
    found = flags(tmp_path, ORDERS, "Find my order, the one from last spring.", steps)
    assert ("stop", "no_progress") in [(v, r) for _, v, r in found], found


def test_a_failures_own_word_beside_a_message_that_names_nothing_the_call_sent_tells_kinds_apart(tmp_path):
    """An error word that moves beside the same generic message (`not_found`, `conflict`, `forbidden`, `gone`) is all
    each failure says of itself: four kinds, then the order found; nothing flags it."""
    ids = [f"W28000{n:02d}" for n in range(1, 6)]
    steps = [("get_order", {"order_id": i}, {"error": e, "message": "Request failed"}, True)
             for i, e in zip(ids, ["not_found", "conflict", "forbidden", "gone"])]
    steps.append(("get_order", {"order_id": ids[-1]}, {"order": ids[-1], "status": "shipped"}))
    assert flags(tmp_path, ORDERS, "Find my order, the one from last spring.", steps) == []


def test_what_moved_alone_between_two_failures_is_one_new_word_beside_the_same_refusal():
    from reference.parts.guards.failures import moved_alone
    first = failure({"error": "order W1 not found", "ref": "abcdef"}, {"id": "W1"})
    assert moved_alone(first, failure({"error": "order W2 not found", "ref": "ghijkl"}, {"id": "W2"})) == {"ref": "ghijkl"}
    assert not moved_alone(first, failure({"error": "order W2 is archived", "ref": "ghijkl"}, {"id": "W2"}))
    assert not moved_alone(failure({"error": "not_found", "message": "Request failed"}, {"id": "W1"}),
                           failure({"error": "conflict", "message": "Request failed"}, {"id": "W2"}))


def test_one_failure_said_again_is_one_kind_whatever_the_call_sent_beside_it():
    trace = "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe6 in position 2047"
    assert alike(failure({"message": trace}, {"code": "pd.read_csv(p, sep=';')"}),
                 failure({"message": trace}, {"code": "pd.read_csv(p, sep=';', encoding='utf-8')"}))


@pytest.mark.parametrize("x, y, same", [
    ({"status": 404, "message": "Not found"}, {"status": 400, "message": "Not found"}, False),
    ({"errno": 2, "message": "No such file"}, {"errno": 13, "message": "No such file"}, False),
    ("Exit code 2: No rule to make target", "Exit code 1: No rule to make target", True),  # digits are not a kind
    ({"ok": False, "error_type": "not_found", "message": "x"}, {"ok": False, "error_type": "conflict", "message": "x"},
     False),  # the kit's own envelope: its error_type is one of its words
])
def test_codes_tell_kinds_apart_and_numbers_in_words_do_not(x, y, same):
    assert alike(failure(x, {}), failure(y, {})) is same


@pytest.mark.parametrize("text, failed", [
    ("KeyError: 'region'", True), ("pandas.errors.ParserError: bad line 4", True),  # Python's last traceback line
    ("java.lang.IllegalStateException: closed", True), ("java.lang.NullPointerException", True),  # Throwable.toString
    ("TypeError: x is not a function", True), ("Error: ENOENT", True),  # ECMAScript's Error.prototype.toString
    ("ERROR:  relation \"order\" does not exist", True), ("fatal: not a git repository", True),  # severities
    ("Error rate: 3%", False), ("mean_error: 0.31", False), ("ErrorBoundary: ok", False),
    ("Fehler: Datei nicht gefunden", False),  # a word in another language names no standard form
])
def test_a_flagless_result_fails_when_it_opens_as_the_languages_print_a_failure(text, failed):
    from reference.diagnosis.logs.chat import says_error
    assert says_error(text) is failed


def test_a_cell_fixed_through_distinct_exceptions_is_a_converging_debug_loop(tmp_path):
    cells = [_tool("execute_cell", "Run a notebook cell.", cell_index="integer"),
             _tool("overwrite_cell_source", "Replace a cell's source.", cell_index="integer", cell_source="string")]
    errors = ["KeyError: 'signup_date'", "DateParseError: Unknown datetime string format, unable to parse: 31/12/2025",
              "TypeError: '<' not supported between instances of 'str' and 'int'"]
    fixes = ["df['signup_dt'] = pd.to_datetime(df['signup_dt'])\ndf.shape",
             "df['signup_dt'] = pd.to_datetime(df['signup_dt'], dayfirst=True)\ndf.shape",
             "df['signup_dt'] = pd.to_datetime(df['signup_dt'], dayfirst=True)\ndf['ltv'] = pd.to_numeric(df['ltv'])"]
    steps = []
    for error, fix in zip(errors, fixes):
        steps += [("execute_cell", {"cell_index": 3}, error),
                  ("overwrite_cell_source", {"cell_index": 3, "cell_source": fix}, "Cell 3 overwritten.")]
    steps.append(("execute_cell", {"cell_index": 3}, "(48211, 9)"))
    assert flags(tmp_path, cells, "Cell 3 (the cleaning step) errors. Fix it and make sure it runs.", steps) == []


def test_the_words_the_model_spelled_are_the_calls_own_too():
    said = {"message": "No such file: ./Docs/Guide.MD"}
    assert alike(failure(said, {"path": "docs/guide.md"}, {"path": "./Docs/Guide.MD"}),
                 failure({"message": "No such file: notes/todo.txt"}, {"path": "notes/todo.txt"}))
