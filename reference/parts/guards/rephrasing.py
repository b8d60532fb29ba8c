"""Principle 2, progress is new information (rephrasing): calls of one tool about one subject that differ
only in wording and get one answer are one question asked again.

The subject of a call is its canonical arguments without free wording (text of two words or more), so four
SKUs that are all in stock are four answers, while three phrasings of one search that find the same page
are one. An answer that lists things of its own (a non-empty list) is compared across positions and case
too: pages 2, 3 and 4 that list the same items asked one question whatever their page numbers say, and
whatever a call in between may have changed (identical result sets from reworded queries are no new
information, even from a tool whose effects the definition leaves unknown). The same list about another
subject is another answer: two issues of one workflow offer the same transitions; so is the same answer to
calls told apart by a value the agent was given (asking.py: addresses from the user's manifest, four of them
not found). Answers are compared without echoes of the call's own arguments and without metadata."""
from __future__ import annotations

from typing import Optional

from . import feedback
from .asking import same_question
from .feedback import Detection
from .state import Detector, GuardedCall, Memory

LEGITIMATE = """
name: batch-stock-check
title: Four products checked one by one, all in stock
user: Are KB-101, KB-102, KB-103 and KB-104 in stock?
tools:
  - {name: check_stock, description: Whether a product is in stock., parameters: {type: object, properties:
     {sku: {type: string}}}, rules: [{result: {data: {in_stock: true}}}]}
model:
  script:
    - call: {tool: check_stock, args: {sku: KB-101}}
    - call: {tool: check_stock, args: {sku: KB-102}}
    - call: {tool: check_stock, args: {sku: KB-103}}
    - call: {tool: check_stock, args: {sku: KB-104}}
    - answer: All four are in stock.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 5}
"""


class Rephrasing(Detector):
    """Calls of one tool that get one answer are one question when they differ only in wording, or when that
    answer lists things of its own."""

    pattern = "same_result"
    legitimate = LEGITIMATE

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        key = m.answer_key(a)
        if key is None:
            return None
        # calls told apart by a value the agent was given (ten addresses the user listed) ask ten questions
        actions = list(dict.fromkeys(x.action for x in same_question(m, m.answers.get(key, []), a)))
        if len(actions) < m.thresholds.same_result_actions or actions[-1] != a.action:
            return None
        return feedback.same_result(a.call.name, actions, list(m.tools))
