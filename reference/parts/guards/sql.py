"""Which texts are SQL statements that change data or schema, read by a SQL tokenizer (sqlparse) rather than by
their first words: a statement after a comment, a CTE (`WITH ... INSERT`), the second statement of a transaction
(`BEGIN; UPDATE ...`) and quoted identifiers all count, as ISO/IEC 9075 reads them.

A statement counts only when it has the grammar's shape (an UPDATE sets a column `=` a value, an INSERT names one
table then its columns or rows, a DELETE names one table then a clause or ends), so plain English that begins with
the same verbs ("update project set to private", "delete from the list the old items") is not SQL. A statement whose
second run changes nothing the first did not (`CREATE TABLE IF NOT EXISTS`, `CREATE OR REPLACE`, `DROP ... IF
EXISTS`, `INSERT ... ON CONFLICT DO NOTHING`) checks before it acts: sent again it is judged by its answer, as an
idempotent call is, not refused as a duplicate write.
"""
from __future__ import annotations

import re
from functools import lru_cache

import sqlparse
from sqlparse import tokens as T

# A cheap first look: a text with none of the grammar's change verbs as a word holds no change statement.
_VERB = re.compile(r"\b(insert|update|delete|merge|replace|upsert|create|alter|drop|truncate)\b", re.IGNORECASE)
_LONGEST = 20_000  # characters: a longer text is a document or a program's source, not a statement sent to run
_CHANGES = {"INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "UPSERT", "CREATE", "CREATE OR REPLACE", "ALTER",
            "DROP", "TRUNCATE"}
# The grammar's forms that check before they act (ISO/IEC 9075 and the PostgreSQL, MySQL and SQLite dialects).
_CHECKS_FIRST = re.compile(r"\b(if\s+not\s+exists|if\s+exists|or\s+replace|on\s+conflict\s+do\s+nothing"
                           r"|insert\s+or\s+ignore|insert\s+ignore)\b", re.IGNORECASE)


def changes_data(text: str) -> bool:
    """Does the text hold an SQL statement that changes data or schema, and would act again if sent again?"""
    return isinstance(text, str) and _VERB.search(text) is not None and len(text) <= _LONGEST and _changes(text)


@lru_cache(maxsize=1024)
def _changes(text: str) -> bool:
    for statement in sqlparse.parse(text):
        kind = statement.get_type()
        if kind in _CHANGES and _shaped(kind, _words(statement)) and not _CHECKS_FIRST.search(str(statement)):
            return True
    return False


# What may follow a query's table reference in ISO/IEC 9075's grammar: its later clauses, a join, a set operator
# (LIMIT, the dialects'), so "select the cheapest flight from Paris to Rome" is English, not a query.
_AFTER_FROM = {"WHERE", "GROUP BY", "HAVING", "WINDOW", "ORDER BY", "OFFSET", "FETCH", "LIMIT", "UNION", "EXCEPT",
               "INTERSECT", "JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", "ON", ",", ")", ";"}


def only_queries(text: str) -> bool:
    """Does the text hold SQL queries and nothing else: each statement a SELECT (or a CTE before one) that reads a
    table (`SELECT ... FROM t [WHERE ...]`), none with INTO (which makes a table)? Legitimate: plain English that
    begins "select ... from" and goes on in words is not a query."""
    if not isinstance(text, str) or len(text) > _LONGEST or not re.search(r"\bselect\b", text, re.IGNORECASE):
        return False
    statements = [s for s in sqlparse.parse(text) if str(s).strip(" \n\t;")]
    return bool(statements) and all(_reads_a_table(s) for s in statements)


def _reads_a_table(statement) -> bool:
    flat = [t for t in statement.flatten() if not t.is_whitespace and t.ttype not in T.Comment]
    if statement.get_type() != "SELECT" or any(t.normalized == "INTO" for t in flat):
        return False
    froms = [i for i, t in enumerate(flat) if t.ttype in T.Keyword and t.normalized == "FROM"]
    for i in froms:
        after = _after_name(flat[i + 1:], alias=True)
        if not (after is None or after.normalized in _AFTER_FROM or after.value == "("):
            return False
    return bool(froms)


def _words(statement) -> list:
    """The statement's tokens, comments and white space left out, from its verb on (a CTE before it is a query)."""
    flat = [t for t in statement.flatten() if not t.is_whitespace and t.ttype not in T.Comment]
    start = next((i for i, t in enumerate(flat) if t.ttype in (T.Keyword.DML, T.Keyword.DDL)
                  and t.normalized in _CHANGES | {"CREATE OR REPLACE"}), 0)
    return flat[start:]


def _is_name(t) -> bool:
    """Is the token a name: a plain or quoted identifier?"""
    return t.ttype in T.Name or t.ttype in T.Literal.String.Symbol


def _shaped(kind: str, words: list) -> bool:
    """Has the statement the grammar's shape for its kind, past its verb?"""
    rest = words[1:]
    values = [t.normalized for t in rest]
    if kind == "UPDATE":  # UPDATE t [alias] SET col = ...
        return "SET" in values and any(t.ttype in T.Operator.Comparison and t.value == "=" for t in rest)
    if kind in ("INSERT", "REPLACE", "UPSERT", "MERGE"):  # INSERT INTO t (cols) | VALUES | SELECT | DEFAULT
        after = _after_name(rest[1:] if values[:1] == ["INTO"] else rest)
        return after is None or after.value == "(" or after.ttype in T.Keyword
    if kind == "DELETE":  # DELETE FROM t [alias] [WHERE ...]
        return values[:1] == ["FROM"] and _ends_or_clause(_after_name(rest[1:], alias=True))
    if kind == "TRUNCATE":  # TRUNCATE [TABLE] t
        return _ends_or_clause(_after_name(rest[1:] if values[:1] == ["TABLE"] else rest))
    return bool(rest) and rest[0].ttype in T.Keyword  # CREATE / ALTER / DROP then the kind of object


def _after_name(words: list, alias: bool = False):
    """The token after the one table name at the head of `words` (dotted parts, and an alias if allowed), or None
    where the statement ends there; where no name comes first, that token."""
    if not words or not _is_name(words[0]):
        return words[0] if words else None
    i = 1
    while i + 1 < len(words) and words[i].value == "." and _is_name(words[i + 1]):
        i += 2
    if alias and i < len(words) and words[i].normalized == "AS":
        i += 1
    if alias and i < len(words) and _is_name(words[i]):
        i += 1
    return words[i] if i < len(words) else None


def _ends_or_clause(t) -> bool:
    return t is None or t.value == ";" or t.ttype in T.Keyword
