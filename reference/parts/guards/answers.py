"""Principle 2, progress is new information (the same answer): a question that keeps getting the answer it
already got, with nothing new said in between, is being asked in a loop, however its calls are spelled.

Calls are compared by their answers, not by their arguments: a build re-run with a different checklist
attached, a log read through a wider window than the log is long, a search reworded in three languages all
get the answer they got before (echoes of the call's own arguments and metadata removed), and so ask one
question again. That holds whatever the call may change, since its answer shows that it changed nothing the
answer can see. The question is the tool and the user's turn, and the subject when the user named it (every
identifying value is in what the user wrote): four SKUs the user listed are four questions even when all four
are in stock. Any call in between that said something new (a first answer to its question, or a value no
result had shown) resets the count: a probe that fails while the server's log moves on is a wait. Answers
that move by themselves (a job's state, an answer with a moment still to come, a call whose answer changed
before) are watched, not looped on."""
from __future__ import annotations

from typing import Optional

from . import feedback
from .feedback import Detection
from .state import Detector, GuardedCall, Memory

LEGITIMATE = """
name: server-probe-while-log-moves
title: A health probe that keeps failing while the server's log shows it compiling, then answers
user: Start the dev server and tell me when /health answers.
tools:
  - {name: start_server, description: Start the development server in the background.,
     parameters: {type: object, properties: {}}, rules: [{result: {data: {pid: 4821}}}]}
  - name: probe
    description: Request a URL of the local server once.
    parameters: {type: object, properties: {url: {type: string}}}
    rules:
      - results: [{error: {type: connection_refused, message: connection refused}},
                  {error: {type: connection_refused, message: connection refused}},
                  {error: {type: connection_refused, message: connection refused}},
                  {data: {status: 200}}]
  - name: read_log
    description: The last lines of the server's log.
    parameters: {type: object, properties: {lines: {type: integer}}}
    rules:
      - results: [{data: {lines: [compiling /]}}, {data: {lines: [compiled / in 19.8s, compiling /health]}},
                  {data: {lines: [compiled /health in 4.1s]}}]
model:
  script:
    - call: {tool: start_server, args: {}}
    - call: {tool: probe, args: {url: "http://localhost:3000/health"}}
    - call: {tool: read_log, args: {lines: 3}}
    - call: {tool: probe, args: {url: "http://localhost:3000/health"}}
    - call: {tool: read_log, args: {lines: 3}}
    - call: {tool: probe, args: {url: "http://localhost:3000/health"}}
    - call: {tool: read_log, args: {lines: 3}}
    - call: {tool: probe, args: {url: "http://localhost:3000/health"}}
    - answer: The server is up and /health answers 200.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 9}
"""


class SameAnswer(Detector):
    """A question that keeps getting the answer it already got, with nothing new said in between, is asked in a loop however its calls are spelled."""

    pattern = "same_result"
    legitimate = LEGITIMATE

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        if a.alike < m.thresholds.same_answer_calls or a.alike_before is None or a.silent:
            return None  # a call that answers nothing at all (a sleep) is a wait, not a question
        if m.info(a.call.name).moves_by_itself or a.to_come or a.action in m.changing:
            return None  # an answer that moves by itself is watched, not looped on
        if m.polled_between(a.alike_before, a):
            return None  # the calls around a poll set its pace: a wait, a back-off
        alike, x = [a.action], a.alike_before
        while x is not None and len(alike) < a.alike:
            alike.insert(0, x.action)
            x = x.alike_before
        return feedback.same_result(a.call.name, list(dict.fromkeys(alike)), list(m.tools))
