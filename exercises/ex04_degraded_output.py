"""Exercise 4: a degraded result instead of "max steps reached".

The task
    Write `degrade(episode, messages, stop)`: the part the guarded loop calls when a run stops
    without a final answer (step limit, budget, loop detected...). `stop` is a `Stop` (reference.loops.hooks): `stop.reason`, `stop.detail`.
    Return a `Degraded` (from reference.parts.degrade) that tells the user why the run stopped, what was
    obtained, what is unfinished and what they can do next. Nothing in it may be invented: every
    obtained item must be a tool result that succeeded.

    Plug it in with `guarded_loop(episode, max_steps, Parts(degrade=degrade))`.

What you are given
    episode.ledger.steps             every model request; `step.tools` are the tool attempts that
                                     followed it (`ToolRecord`: `name`, `arguments`, `ok`, `outcome`,
                                     `call_id`; `outcome` is the structured result, a dict with `data`,
                                     or None if the tool raised). Calls that never ran (a guard's
                                     intervention, a "not run" answer) are not in it.
    episode.scenario.checklist       the task's items (`item`, `tool`, `when`)
    Degraded, Obtained, NextStep     reference.parts.degrade; `degraded.render()` writes an answer from
                                     the fields (or write your own). A NextStep's action is one of
                                     "narrow", "rephrase", "retry_later", "hand_over".

What the tests expect (tests/test_ex04_degraded_output.py)
    - every stop returns a Degraded with its stop reason, and its detail carries the stop's detail;
    - obtained: exactly the tool results that are facts, in the order they first came. Errors,
      exceptions, business failures (HTTP 200 with `{"success": false, ...}`) and empty results (None,
      "", [], {}, or an object whose every field is one of those: `{"results": []}` found nothing) are
      not facts, and nothing comes from the model's own text. Identical results (same tool, arguments
      and data) are one item, with its first call id, its step and the repeats counted in `times`;
      parallel calls to the same tool with different arguments are separate facts;
    - unfinished: the checklist items, in order, that no obtained item covers. An item with a `tool` is
      covered by an obtained result of that tool whose arguments include every key/value of `when`;
      an item without a tool needs the final answer, so a stopped run never covers it;
    - next steps fit the stop reason: narrow the request after a token, cost or step limit; rephrase
      after a repeated call, the same result or no progress; hand over first after alternation;
      hand over or retry later first (a failing tool or provider may heal) after an open circuit or an
      error; narrow or retry later after a time budget; narrow or run it later after a cancel; handing
      over to a person is always one of the next steps, and a loop or a token/cost stop never suggests
      retrying later;
    - the answer says why the run stopped, what was found, what is missing and what to do next, is
      never just "max steps reached", states no value that no tool returned, and is honest when no
      tool result came at all; two runs in one process share nothing.

Check your work with `loopkit check ex04`; ask for a hint with `loopkit hint ex04`.
"""
from __future__ import annotations

from reference import Episode, Message, StopReason  # noqa: F401  (you will need them)
from reference.loops.hooks import Stop  # noqa: F401  (why the run stopped: .reason, .detail)
from reference.parts.degrade import Degraded, NextStep, Obtained  # noqa: F401


def degrade(episode: Episode, messages: list[Message], stop: Stop) -> Degraded:
    raise NotImplementedError("Exercise 4: build the degraded result described above, then run `loopkit check ex04`")
