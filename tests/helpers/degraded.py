"""Lesson 4's test fixtures, shared by tests/test_ex04_degraded_output.py and tests/test_degrade.py: two small
stand-ins for lessons 2 and 3 (`TinyBudget`, `TinyGuard`), just enough to stop each scenario for its own reason,
and two scenarios (most tools fail; the model makes up a last answer)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from reference import Episode, ToolMessage, find, parse_scenario
from reference.core.model import Usage
from reference.core.result import StopReason
from reference.loops import hooks
from reference.loops.hooks import RUN, Stop, Verdict
from reference.sim.scenario.schema import Scenario
from reference.sim.tokens import request_tokens
from reference.wire.protocol import to_wire

# ---------------------------------------------------------------- stand-ins for lessons 2 and 3


@dataclass
class TinyBudget(hooks.Budget):
    """Trips before a request whose input would overshoot the token or cost limit, and before a tool
    whose last observed duration would overshoot the time limit."""

    def before_request(self, episode: Episode, messages, step: int):
        limits, ledger = episode.limits, episode.ledger
        wire = to_wire(messages, episode.tools.specs, episode.scenario.model.wire)
        nxt = request_tokens(wire)
        if limits.max_run_tokens and ledger.usage.total_tokens + nxt > limits.max_run_tokens:
            return Stop(StopReason.TOKEN_BUDGET, f"the next request needs ~{nxt} tokens; {ledger.usage.total_tokens} "
                        f"of {limits.max_run_tokens} used")
        if limits.max_cost_usd and ledger.cost_usd + ledger.pricing.cost(Usage(nxt, 0)) > limits.max_cost_usd:
            return Stop(StopReason.COST_BUDGET, f"${ledger.cost_usd:.3f} of ${limits.max_cost_usd:.2f} spent")
        return None

    def before_tool(self, episode: Episode, call):
        limit = episode.limits.max_seconds
        seen = [r.seconds for s in episode.ledger.steps for r in s.tools if r.name == call.name]
        if limit and seen and episode.clock.elapsed + seen[-1] > limit:
            return Stop(StopReason.TIME_BUDGET, f"{call.name} takes ~{seen[-1]:.0f} s; "
                        f"{episode.clock.elapsed:.0f} of {limit:.0f} s used")
        return None


@dataclass
class TinyGuard:
    """A repeat is answered once with loop feedback, then stops the run; A-B-A-B stops it; three empty
    results in a row stop it for no progress."""

    seen: list[str] = field(default_factory=list)
    warned: bool = False
    empty_streak: int = 0

    def before_call(self, episode: Episode, call, messages) -> Verdict:
        key = call.name + json.dumps(json.loads(call.arguments), sort_keys=True)
        s = self.seen
        if len(s) >= 3 and s[-3] == s[-1] and s[-2] == key != s[-1]:
            return Verdict("stop", stop=Stop(StopReason.ALTERNATION, f"{call.name} and another tool keep alternating"))
        self.seen.append(key)
        if key in s[:-1]:
            if self.warned:
                return Verdict("stop", stop=Stop(StopReason.REPEATED_CALL, f"{call.name} repeated after an intervention"))
            self.warned = True
            body = {"ok": False, "error_type": "loop_detected", "pattern": "repeated_call",
                    "evidence": f"{call.name} was already called with these arguments",
                    "options": ["another tool", "other arguments", "answer with what you have"],
                    "instruction": "Do not repeat this call."}
            return Verdict("intervene", ToolMessage(call.id, json.dumps(body), is_error=True))
        return RUN

    def after_result(self, episode, call, result: ToolMessage) -> ToolMessage:
        body = json.loads(result.content)
        data = body.get("data")
        self.empty_streak = self.empty_streak + 1 if body.get("ok") and data in ({"results": []}, [], None) else 0
        return result

    def after_step(self, episode, messages):
        if self.empty_streak >= 3:
            return Stop(StopReason.NO_PROGRESS, f"{self.empty_streak} results in a row brought nothing new")
        return None

# ---------------------------------------------------------------- scenarios

FAILURES = parse_scenario({
    "name": "refund-mixed-results", "title": "A refund request where most tools fail",
    "user": "Refund order R42: it arrived broken.",
    "checklist": [
        {"item": "look up order R42", "tool": "get_order"},
        {"item": "issue the refund", "tool": "issue_refund"},
        {"item": "find the invoice", "tool": "get_invoice"},
        {"item": "check the shipment", "tool": "get_shipment"},
        "tell the user what happens next",
    ],
    "limits": {"max_steps": 3},
    "tools": [
        {"name": "get_order", "rules": [{"result": {"data": {"order_id": "R42", "total_cny": 329, "paid": True}}}]},
        {"name": "issue_refund", "rules": [{"result": {
            "fault": "business_failure", "error_code": "REFUND_WINDOW_CLOSED",
            "message": "Refunds close 30 days after delivery."}}]},
        {"name": "get_invoice", "rules": [{"result": {"fault": "not_found"}}]},
        {"name": "get_shipment", "rules": [{"result": {"fault": "timeout", "timeout_seconds": 10}}]},
    ],
    "model": {"cycle": [{"calls": [{"tool": "get_order", "args": {"order_id": "R42"}},
                                   {"tool": "issue_refund", "args": {"order_id": "R42"}},
                                   {"tool": "get_invoice", "args": {"order_id": "R42"}},
                                   {"tool": "get_shipment", "args": {"order_id": "R42"}}]}]},
    "expect": {"completable": False, "stop_reason": "max_steps"},
}, "tests/test_ex04 (refund-mixed-results)")


def _hallucinating() -> Scenario:
    """repeat-exact, but asked for a last answer the model makes up a delivery it never saw."""
    s = find("repeat-exact")
    model = s.model.model_copy(update={
        "answer_without_tools": "Good news: order A1234 was delivered on 2026-11-29 at 14:05, signed for by J. Chen."})
    return s.model_copy(update={"name": "repeat-exact-hallucinating", "model": model})


HALLUCINATING = _hallucinating()


def _musing() -> Scenario:
    """repeat-exact, but the model's text beside each repeated call guesses values no tool returned."""
    s = find("repeat-exact")
    guess = s.model.cycle[0].model_copy(update={
        "text": "It was probably delivered on 2026-11-30 already; the tracking number should be SF7714023."})
    return s.model_copy(update={"name": "repeat-exact-musing", "model": s.model.model_copy(update={"cycle": [guess]})})


MUSING = _musing()
