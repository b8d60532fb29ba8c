"""Running exercise 5's executor (core and stretch) on scenarios, and reading what the model was shown."""
from __future__ import annotations

import json

import pytest

from reference import RunResult, ToolMessage, parse_scenario
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.sandbox.grading import run_candidate

# A stack trace with everything that must never reach a model: a path, SQL, a host, an IP, a DSN with
# a password, an API key. All of it fake.
SECRET = ('Traceback (most recent call last):\n  File "/srv/orders-api/app/db.py", line 88, in fetch_order\n'
          '    cur.execute("SELECT id, card_last4 FROM orders WHERE id = %s")\npsycopg2.OperationalError: '
          'connection to server at "orders-db-prod-7.internal.example.com" (10.20.3.7), port 5432 failed\n'
          'DSN: postgresql://orders_rw:FAKE-PASSWORD-not-real@orders-db-prod-7.internal.example.com:5432/orders '
          'api_key=sk-FAKE0000notarealkey0000')
NEEDLES = ["FAKE-PASSWORD-not-real", "sk-FAKE0000notarealkey0000", "orders-db-prod-7", "10.20.3.7",
           "/srv/orders-api", "SELECT", "Traceback", "psycopg2", "card_last4", "line 88"]


# ---------------------------------------------------------------- running and reading a run

class Played:
    def __init__(self, attempt, offered):
        self.attempt, self.offered = attempt, offered  # the tools the executor offered at the end
        self.result: RunResult = attempt.result
        self.name = attempt.scenario.name

    def tries(self, tool: str) -> list:
        """Every attempt at `tool`, from the ledger (retries included)."""
        return [t for s in self.result.steps for t in s.tools if t.name == tool]

    def requests(self) -> list:
        model = self.attempt.episode.model.inner
        while not hasattr(model, "requests"):
            model = model.inner
        return model.requests

    def shown_errors(self) -> list[dict]:
        """Every error result the model was shown, parsed."""
        out = []
        for m in self.result.messages:
            if isinstance(m, ToolMessage) and m.is_error:
                try:
                    out.append(json.loads(m.content))
                except ValueError:
                    out.append({"raw": m.content})
        return out


def play(ex, scenario, max_steps=None, sandbox=True) -> Played:
    made = []

    def ex05_loop(episode, max_steps=8):
        executor = ex.make_executor(episode)
        made.append(executor)
        return guarded_loop(episode, max_steps, Parts(executor=executor))

    def offered_at_end(episode):  # runs after the loop, in its process, where the executor lives
        return [s.name for s in made[0].offered(episode)]

    attempt = run_candidate(ex05_loop, scenario, max_steps, probe=offered_at_end, sandbox=sandbox)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    return Played(attempt, attempt.probe)


def inline(name, tools, calls, *, limits=None):
    """A scenario: the model calls `calls` (tool, args) in one turn, then answers."""
    return parse_scenario({
        "name": name, "title": name, "user": "Look it up, please.", "limits": limits or {"max_steps": 4},
        "tools": [{"name": t, "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                   "rules": [rule]} for t, rule in tools.items()],
        "model": {"allow_unknown_tools": True,
                  "script": [{"calls": [{"tool": t, "args": a} if isinstance(a, dict) else {"tool": t, "raw_args": a}
                                        for t, a in calls]},
                             {"answer": "Sorry, I could not look that up."}]},
        "expect": {"completable": False, "stop_reason": ["completed", "circuit_open"]},
    })


def fault(kind, **more):
    return {"result": {"fault": kind, **more}}


def one_call_per_turn(name, tool, rules, calls):
    """A scenario with one tool: the model sends `calls` one per turn (each after the last one's result), then
    answers."""
    return parse_scenario({
        "name": name, "title": name, "user": "Look it up, please.", "limits": {"max_steps": len(calls) + 2},
        "tools": [{"name": tool, "rules": rules,
                   "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}],
        "model": {"script": [{"call": {"tool": tool, "args": a}} for a in calls]
                  + [{"answer": "Here is what I found."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    }, source=f"tests/helpers/tool_errors.py ({name})")
