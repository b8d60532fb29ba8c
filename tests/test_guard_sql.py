"""SQL statements that change data or schema, read by their tokens (reference/parts/guards/sql.py): what comes
before the verb (a comment, a CTE, a BEGIN) does not hide a change, English that opens with an SQL verb is not a
statement, and a statement that checks before it acts would not act again."""
from __future__ import annotations

import pytest

from reference.parts.guards.effects import ToolInfo, sends_sql_change

CHANGES = [
    "-- backfill the missing day\nINSERT INTO daily (day, n) VALUES ('2026-11-29', 4)",
    "/* nightly */ DELETE FROM sessions WHERE expires_at < now()",
    "WITH stale AS (SELECT id FROM carts WHERE age > 30) DELETE FROM carts WHERE id IN (SELECT id FROM stale)",
    'BEGIN; UPDATE "Orders" SET "state" = \'shipped\' WHERE "id" = 7; COMMIT;',
    "update `users` set `plan` = 'pro' where id = 3",
    "TRUNCATE TABLE staging.events",
    "ALTER TABLE invoices ADD COLUMN paid_at timestamptz",
]
NOT_CHANGES = [
    "update project set to private",
    "delete from the list the old items",
    "Please insert into the doc a table of contents",
    "create a new project called alpha",
    "SELECT * FROM audit WHERE note = 'UPDATE t SET a = 1'",
    "WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
]
ACTS_ONCE = [  # sent again, changes nothing the first did not
    "CREATE TABLE IF NOT EXISTS jobs (id int primary key)",
    "CREATE OR REPLACE VIEW open_orders AS SELECT * FROM orders WHERE state = 'open'",
    "DROP INDEX IF EXISTS orders_state_idx",
    "INSERT INTO seen (id) VALUES (42) ON CONFLICT DO NOTHING",
]


@pytest.mark.parametrize("sql", CHANGES)
def test_a_change_is_read_past_comments_ctes_transactions_and_quotes(sql):
    assert sends_sql_change({"sql": sql})


@pytest.mark.parametrize("text", NOT_CHANGES)
def test_english_and_queries_are_not_changes(text):
    assert not sends_sql_change({"query": text})


@pytest.mark.parametrize("sql", ACTS_ONCE)
def test_a_statement_that_checks_before_it_acts_would_not_act_again(sql):
    assert not sends_sql_change({"sql": sql})


def test_a_tool_whose_definition_says_nothing_writes_by_what_it_sends():
    info = ToolInfo(name="query_warehouse", description="Query the warehouse and return its rows.")
    assert info.writes_by({"query": CHANGES[0]}) and not info.writes_by({"query": NOT_CHANGES[0]})


def test_a_tool_whose_definition_says_nothing_reads_when_it_sends_queries_alone():
    """The last resort's words give way to the statement sent: a SELECT reads through `execute_sql`; a SELECT INTO
    makes a table and English that opens "select ... from" is no query, so the tool's words still speak."""
    info = ToolInfo(name="execute_sql", description="Execute an SQL query on the SQL Server")
    assert info.writes_by({"sql": "SELECT 1"})  # reads no table: the words speak
    assert not info.writes_by({"query": "SELECT DISTINCT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY Seiten) OVER () "
                                        "AS m FROM dbo.Posteingang WHERE Importdatum >= '2026-03-01'"})
    assert not info.writes_by({"query": "WITH r AS (SELECT id FROM runs) SELECT * FROM r JOIN jobs ON r.id = jobs.run"})
    assert info.writes_by({"query": "SELECT * INTO archive_2025 FROM orders"})
    assert info.writes_by({"query": "Select the cheapest flight from Paris to Rome"})
    assert info.writes_by({"query": "SELECT name FROM users; DELETE FROM users WHERE id = 1"})


def test_a_tool_whose_definition_says_nothing_reads_when_it_sends_a_safe_http_method():
    info = ToolInfo("api_request", description="Call the store's Admin API. Returns the JSON response.")
    assert not info.writes_by({"method": "GET", "path": "/admin/orders/o_1"})  # RFC 9110: GET is safe
    assert not info.writes_by({"request": {"verb": "HEAD", "url": "/admin/orders"}})  # whatever the member's name
    assert info.writes_by({"method": "POST", "path": "/admin/payments/p_1/refund"})
    assert info.writes_by({"note": "GET the customer a refund"})  # a word of a sentence is no method


def test_a_refund_sent_again_after_an_api_read_of_the_order_is_the_duplicate(tmp_path):
    from tests.helpers.chat_logs import flags, tool
    api = tool("api_request", "Call the store's Admin API. Returns the JSON response.", method="string",
               path="string")
    refund = ("api_request", {"method": "POST", "path": "/admin/payments/pay_01JB/refund"},
              {"payment": {"id": "pay_01JB", "refunds": [{"id": "refu_01JC0A1", "amount": 189.9}]}})
    order = ("api_request", {"method": "GET", "path": "/admin/orders/order_01JB"},
             {"order": {"id": "order_01JB", "summary": {"paid_total": 189.9, "refunded_total": 0}}})
    assert flags(tmp_path, [api], "Refund 189.90 of order 1043.", [refund, order, refund])[:1] \
        == [(5, "intervene", "repeated_call")]
