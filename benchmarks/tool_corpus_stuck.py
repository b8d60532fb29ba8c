"""Stuck flows over real tool definitions: a stubborn model that never gets anywhere and never stops.

Each flow's model plays its script then cycles for ever, whatever the loop tells it; a guard must see the
loop, intervene, and stop the run within STOP_WITHIN model calls of `onset` (the first call at which an
attentive reader could tell). `onset` is set here, by construction, before any run.
"""
from __future__ import annotations

from typing import Any

import tool_corpus_facts as F
from tool_corpus_flows import Flow, call, ok, scenario, tool_spec

ENDLESS = 40  # distinct calls scripted for a model that varies its arguments (more than STUCK_STEPS)


def same_call(r: F.ToolDef) -> Flow:
    """The same read, same arguments, same answer, again and again."""
    a = F.arguments(r)
    tools = [tool_spec(r, [{"result": ok({**a, "summary": "nothing new"})}])]
    return Flow(f"same-{r.kit_name}", "same_call", False,
                scenario("x", "the same call repeated", "Find out what is going on.", tools, [], False,
                         cycle=[call(r, a)]), onset=2)


def echoed_empty(r: F.ToolDef) -> Flow:
    """New wordings of a search, each answered with nothing but the wording itself."""
    q = F.queries(r)[0]
    wordings = [F.arguments(r, **{q: f"open bugs in checkout, wording {i}"}) for i in range(ENDLESS)]
    rules = [{"when": {q: args[q]}, "result": ok({q: args[q], "total_count": 0, "items": []})} for args in wordings]
    return Flow(f"echo-{r.kit_name}", "echoed_empty", False,
                scenario("x", "empty results that only echo the query", "Find the open checkout bugs.",
                         [tool_spec(r, rules)], [call(r, args) for args in wordings], False), onset=3)


def guessing(r: F.ToolDef) -> Flow:
    """Id after id, each a 404: the agent is guessing."""
    key = F.entity_ids(r)[0]
    guesses = [F.arguments(r, n) for n in range(1, ENDLESS + 1)]
    rules = [{"result": {"fault": "not_found"}}]
    return Flow(f"guess-{r.kit_name}", "guessing", False,
                scenario("x", f"guessing {key} values, 404 after 404", "Find the one I mean.", [tool_spec(r, rules)],
                         [call(r, args) for args in guesses], False), onset=3)


def stuck_offset(r: F.ToolDef) -> Flow:
    """The page number advances, the answer does not: from page 2 on the API keeps serving the same items, with
    nothing new in it but the echo of the page asked for."""
    p = F.page_numbers(r)[0]
    first = 0 if p.lower() == "offset" else 1
    pages = [F.arguments(r, **{p: first + i}) for i in range(ENDLESS)]
    rules = [{"when": {p: args[p]}, "result": ok({p: args[p], "items": [{"id": 11}, {"id": 12}] if i else
                                                  [{"id": 1}, {"id": 2}], "has_more": True})}
             for i, args in enumerate(pages)]
    return Flow(f"offset-{r.kit_name}", "stuck_offset", False,
                scenario("x", "an offset that stops advancing the results", "List all of them.",
                         [tool_spec(r, rules)], [call(r, args) for args in pages], False), onset=3)


PATH_SPELLINGS = ["docs/guide.md", "./docs/guide.md", "docs//guide.md", "docs/./guide.md", "docs/x/../guide.md"]


def number_spellings(value: int) -> list[Any]:
    """One number as models write it: an integer, a float, and both as text (which a validating loop refuses)."""
    return [value, float(value), str(value), f"{value}.0"]


DATE_SPELLINGS = ["2026-12-01", "Dec 1, 2026", "1 December 2026", "2026/12/01"]
INSTANT_SPELLINGS = ["2026-12-01T00:00:00Z", "2026-12-01T00:00:00+00:00", "2026-12-01T08:00:00+08:00",
                     "2026-11-30T19:00:00-05:00"]  # one instant, in the units of four time zones


def spellings(r: F.ToolDef) -> Flow:
    """One call in several spellings (a path; a date or an instant; a number within the schema's bounds), each
    with the same answer."""
    if F.paths(r):
        prop, values = F.paths(r)[0], PATH_SPELLINGS
    elif F.dates(r):
        prop = F.dates(r)[0]
        values = DATE_SPELLINGS if r.props()[prop].get("format") == "date" else INSTANT_SPELLINGS
    else:
        prop = F.plain_numbers(r)[0]
        values = number_spellings(F.sample(prop, r.props()[prop]))
    calls = [call(r, F.arguments(r, **{prop: v})) for v in values]
    tools = [tool_spec(r, [{"result": ok({"content": "the same answer"})}])]
    return Flow(f"spell-{r.kit_name}", "spellings", False,
                scenario("x", f"the same call with {prop} spelt differently", "Show me that.", tools, [], False,
                         cycle=calls), onset=2)
