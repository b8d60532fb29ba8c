"""Exercise 1: write the ReAct loop from memory, in about 20 lines.

The task
    Write `react_loop(episode, max_steps)`: the loop that lets a model call tools until it gives a final
    answer, and that gives up after `max_steps` model requests if it never does. Write it from memory,
    as an interviewer asks for it on a whiteboard: do not scroll back to the notebook's cells. The
    names below are all the kit you need; what goes where, and in which order, is the exercise.

What you are given
    episode.initial_messages()       the history to start from: system prompt and user request
    episode.model.complete(messages, tools) -> Turn
                                     one model request; a Turn has .message, .text and .tool_calls
    episode.tools.specs              the tools to offer the model
    episode.tools.execute(call)      runs one tool call in your code; returns its result message,
                                     never raises (a failing tool comes back as an error result)
    episode.finish(stop_reason, messages, answer=None, detail="")
                                     the RunResult to return; StopReason says why the run ended

What the tests check (tests/test_ex01_react_loop.py)
    - a run that ends in a final answer stops with StopReason.COMPLETED and that answer;
    - a model that never stops calling tools is stopped after `max_steps` requests (StopReason.MAX_STEPS);
      `max_steps` is 8 unless given, and 0 makes no request at all;
    - one step is one model request, however many tool calls the turn holds;
    - every request is a conversation the real APIs accept (they refuse a broken one with HTTP 400),
      and every tool call the model asks for is answered;
    - the result carries the whole history, and a tool that fails does not crash the loop.

Check your work with `loopkit check ex01` (or `loopkit check --watch ex01`); ask for a hint with
`loopkit hint ex01`.
"""
from __future__ import annotations

from reference import Episode, RunResult, StopReason  # noqa: F401  (you will need them)


def react_loop(episode: Episode, max_steps: int = 8) -> RunResult:
    raise NotImplementedError("Exercise 1: write the loop described above, then run `loopkit check ex01`")
