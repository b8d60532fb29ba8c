"""What a tool's definition says about its calls: may one change state, may its answer move by itself.

Real tool definitions (MCP servers, OpenAPI operations) carry no kit-only flag, so the guard reads what
they do carry, strongest source first:

1. MCP annotations, when the definition has an `annotations` object. A hint it leaves out takes the
   spec's default: readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true.
   A call may change state unless readOnlyHint is true; a read's answer may move by itself when
   openWorldHint is true (it reads a world outside the run).
2. The HTTP method, where the tool states one (an OpenAPI operation's description starting "GET /..."):
   GET, HEAD and OPTIONS are safe methods (RFC 9110, 9.2.1); any other may change state. Where only the last
   resort speaks, a call that sends safe methods alone, each as a whole text of its arguments (a generic API
   request tool asked `GET`), reads (`sends_safe_method`); not a call sending POST, nor "GET" in a sentence.
3. Last resort, documented as such: the first word of the name or of the description is an English verb
   that reads (READ_VERBS). A description that only names a thing ("A message to a recipient", "The status of
   a job") says nothing of effects, so such a tool may change state, as the MCP default says. What the words
   decide is narrow: whether a call counts as a write in the guard's books (its success opens a new state epoch
   and is news for the reads around it, its answer stands until the user speaks: books.py, state.py), for the
   duplicate-write rules (resent.py, amended.py, landed.py) and for progress (progress.py); measured, a shell or an
   editor that answers content still writes, so content alone cannot take their place there. Whether the
   identical call runs again is decided by what it answered (repeats.py): content marks a read, and so does an
   answer that gives only the state of the thing the call names (no minted id, no number: a refund's status,
   whatever language the tool is named in), while an acknowledgement of one record that sends back nothing the call
   sent and holds an id nothing had shown marks a write, whatever the words (a guest checked in by
   `check_in_guest`, "Checks a guest in and assigns a free room.", answered with a new assignment id); the words
   decide it only where the answer is an acknowledgement holding a number or flags alone, or an id the call sent.

Where only the last resort speaks, a call may change state whatever its tool's name when it sends an SQL
data-change or schema statement (ISO/IEC 9075: INSERT INTO, UPDATE ... SET, DELETE FROM, MERGE INTO, CREATE,
ALTER or DROP of a table, view or index, TRUNCATE): an INSERT through a tool named `query` writes, and such a
call acts again each time it is sent. A tool whose annotations say it only reads keeps its word (a read-only
transaction refuses the statement), and a search for the words "update on the project" sends no statement. The
other way, a call that sends SQL queries and no change statement reads (ISO/IEC 9075: a SELECT reading a table, none
with INTO) whatever its tool's name: `execute_sql` sent a SELECT; it must not read a SELECT ... INTO, which makes a table.

The scenario format's `volatile` flag overrides all three for the kit's own scenarios: true says the
answer moves by itself (a queue length), false that it never does.

Whether a second identical call has an effect of its own (idempotence): MCP's idempotentHint where the
definition has annotations (a read is idempotent by nature); with none, the HTTP method RFC 9110 (9.2.2)
defines as idempotent (GET, HEAD, OPTIONS, PUT, DELETE). The last resort says nothing about it: a call
that may change state is taken to act again each time.

Errors that say the resource changed open a new state epoch too: HTTP 409 Conflict and 412 Precondition
Failed (by status field or the RFC's reason phrase), or an error that carries a new ETag.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .responses import names_a_status
from .sql import changes_data, only_queries

MCP_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
IDEMPOTENT_METHODS = SAFE_METHODS | {"PUT", "DELETE"}  # RFC 9110, 9.2.2
_METHOD = re.compile(r"^\s*(GET|HEAD|OPTIONS|POST|PUT|PATCH|DELETE)\s+/", re.IGNORECASE)
# The last resort: English verbs that read. Only consulted for a tool with neither annotations nor an HTTP method,
# and outranked by its answers where they tell, either way (repeats.py).
READ_VERBS = {"get", "list", "search", "find", "read", "fetch", "query", "lookup", "look", "check", "describe",
              "show", "view", "count", "browse", "retrieve", "inspect", "track", "poll", "watch", "status",
              "returns", "gets", "lists", "searches", "finds", "reads", "fetches", "retrieves", "shows", "checks"}
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_CHANGED = re.compile(r"\b(409 Conflict|412 Precondition Failed)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ToolInfo:
    """What the guard knows about one tool, from its definition."""

    name: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    annotations: Optional[Mapping[str, Any]] = None  # None: the definition has no annotations object
    volatile: Optional[bool] = None  # the scenario format's override
    metadata: frozenset = frozenset()  # result keys the tool declares as metadata

    @property
    def source(self) -> str:
        """Where the answer about state comes from: "annotations", "http" or "name" (the last resort)."""
        if self.annotations is not None:
            return "annotations"
        return "http" if _METHOD.match(self.description) else "name"

    @property
    def writes(self) -> bool:
        """May a call change state?"""
        if self.volatile is not None and self.annotations is None:
            return False  # the scenario says how its answer moves: it is read
        if self.annotations is not None:
            return not self._hint("readOnlyHint")
        method = _METHOD.match(self.description)
        if method:
            return method.group(1).upper() not in SAFE_METHODS
        return not (_first_word(self.name) in READ_VERBS or _first_word(self.description) in READ_VERBS)

    def writes_by(self, arguments: Any) -> bool:
        """May this call change state: the definition says so, or, where only the last resort speaks, it sends an
        SQL data-change or schema statement (`sends_sql_change`), or sends more than SQL queries alone or safe HTTP
        methods alone (`sends_safe_method`)?"""
        if self.unknown and sends_sql_change(arguments):
            return True
        return self.writes and not (self.unknown and (_texts(arguments, only_queries) or sends_safe_method(arguments)))

    def idempotent_by(self, writes: bool) -> bool:
        """Has a second identical call no effect beyond the first's, given whether the call may change state? A
        call that writes where its tool's name says it reads (an INSERT sent as a query) acts again each time."""
        return self.idempotent if writes == self.writes else not writes

    @property
    def idempotent(self) -> bool:
        """Has a second identical call no effect beyond the first's?"""
        if not self.writes:
            return True
        if self.annotations is not None:
            return bool(self._hint("idempotentHint"))
        method = _METHOD.match(self.description)
        return bool(method) and method.group(1).upper() in IDEMPOTENT_METHODS

    @property
    def open_world(self) -> bool:
        """Does the definition say the tool acts on a world outside the run (MCP openWorldHint, its default
        true once annotations are given)? Nothing is known of a tool without annotations."""
        return self.annotations is not None and bool(self._hint("openWorldHint"))

    @property
    def unknown(self) -> bool:
        """Does the definition say nothing of a call's effects (no annotations, no HTTP method, no `volatile`)?
        Then only the last resort's words speak, and what the call answers says more (repeats.py)."""
        return self.volatile is None and self.source == "name"

    @property
    def moves_by_itself(self) -> bool:
        """May a read's answer change with no call of this run in between?"""
        if self.volatile is not None:
            return self.volatile
        return self.annotations is not None and not self.writes and bool(self._hint("openWorldHint"))

    def _hint(self, name: str) -> Any:
        value = (self.annotations or {}).get(name)
        return MCP_DEFAULTS[name] if value is None else value


def _texts(arguments: Any, test: Any) -> bool:
    """Does one of the call's texts, at any depth, pass `test`?"""
    if isinstance(arguments, dict):
        return any(_texts(v, test) for v in arguments.values())
    return any(_texts(v, test) for v in arguments) if isinstance(arguments, list) else test(arguments)


def sends_safe_method(arguments: Any) -> bool:
    """Does the call send a safe HTTP method (RFC 9110, 9.2.1: GET, HEAD, OPTIONS, TRACE) as one whole text of its
    arguments, and no other method (a generic API request tool asked `GET /admin/orders/...`)? Then, where only the
    last resort speaks, it reads as the method says. Not a call sending POST, nor "get" inside a sentence."""
    sent = _methods(arguments)
    return bool(sent) and sent <= _SAFE_ALL


def _methods(arguments: Any) -> set[str]:
    """The HTTP methods a call sends as whole texts of its arguments, at any depth (method names are case-sensitive,
    RFC 9110, 9.1)."""
    if isinstance(arguments, dict):
        return set().union(*(_methods(v) for v in arguments.values()))
    if isinstance(arguments, list):
        return set().union(*(_methods(v) for v in arguments))
    found = _WHOLE_METHOD.fullmatch(arguments) if isinstance(arguments, str) else None
    return {found.group(1)} if found else set()


_WHOLE_METHOD = re.compile(r"\s*(GET|HEAD|OPTIONS|TRACE|POST|PUT|PATCH|DELETE|CONNECT)\s*")  # RFC 9110 9.3, RFC 5789
_SAFE_ALL = SAFE_METHODS | {"TRACE"}  # RFC 9110, 9.2.1


def sends_sql_change(arguments: Any) -> bool:
    """Does one of the call's texts hold an SQL data-change or schema statement that would act again if sent again
    (ISO/IEC 9075, read by a tokenizer: sql.py)? Legitimate: "update project set to private" is English."""
    if isinstance(arguments, dict):
        return any(sends_sql_change(v) for v in arguments.values())
    if isinstance(arguments, list):
        return any(sends_sql_change(v) for v in arguments)
    return isinstance(arguments, str) and changes_data(arguments)


def http_method(description: str) -> Optional[str]:
    """The HTTP method a description states ("POST /refunds - ..." -> "POST"), or None."""
    method = _METHOD.match(description)
    return method.group(1).upper() if method else None


def _first_word(text: str) -> str:
    words = _WORDS.findall(text.strip()[:60])
    return words[0].lower() if words else ""


def resource_changed(body: Optional[Mapping[str, Any]]) -> bool:
    """Does a failed call's body say the resource changed since it was read (409, 412, a new ETag)?"""
    if not body:
        return False
    if any(names_a_status(key) and str(value).strip() in ("409", "412") for key, value in body.items()):
        return True
    if any(str(key).lower() == "etag" for key in body):
        return True
    return bool(_CHANGED.search(str(body.get("message", ""))))
