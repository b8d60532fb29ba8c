"""Exercise 4: a degraded result instead of "max steps reached".

The task
    Write `degrade(episode, messages, trip)`: the part the guarded loop calls when a run stops
    without a final answer (step limit, budget, loop detected...). `trip` is `(stop_reason, detail)`.
    Return a `Degraded` (from reference.parts.degrade) that tells the user why the run stopped, what was
    obtained, what is unfinished and what they can do next. Nothing in it may be invented: every
    obtained item must be a tool result that succeeded.

    Plug it in with `guarded_loop(episode, max_steps, Parts(degrade=degrade))`.

Steps
    1. What was obtained. `episode.ledger.steps` lists every model request; each `step.tools` lists
       the tool attempts that followed it (`ToolRecord`: `name`, `arguments`, `ok`, `outcome`,
       `call_id`; `outcome` is the tool's structured result as a dict with `data`, or None if the
       tool raised). Keep a record only if it is a real fact:
         - `ok` is true and `outcome` is not None (errors and exceptions are not facts);
         - its data is not a business failure: HTTP 200 with `{"success": false, ...}` in the body;
         - its data is not empty: None, "", [], {}, or an object whose every field is one of those
           (`{"results": []}` means "found nothing", not a fact).
       Calls that never ran (a guard's intervention, a "not run" answer) are not in the ledger at all;
       never take facts from the model's own text. Fold identical results (same tool, same
       arguments, same data) into one `Obtained(tool, arguments, data, call_id, step)` and count the
       repeats in `times`. Keep the order in which they first came.
    2. What is unfinished. `episode.scenario.checklist` lists the task's items (`item`, `tool`,
       `when`). An item with a `tool` is done when an obtained item has that tool and its arguments
       include every key/value of `when` (no `when`: any arguments). An item without a tool needs
       the final answer, which a stopped run does not have: it is always unfinished. `unfinished` is
       the list of item texts, in checklist order (and `done` the others, if you like).
    3. What to do next, by stop reason (`StopReason(trip[0])`): `NextStep(action, text)` with the
       action one of "narrow", "rephrase", "retry_later", "hand_over" and a short, concrete text.
         - token or cost budget, step limit: narrow the request first (less to read);
         - repeated call, same result, no progress: rephrase (more specific words, an id);
         - alternation, circuit open, error: hand over to a person first (or retry later for a
           tool or provider that is failing);
         - slow tools (time budget): narrow, or retry later;
         - the user pressed stop (cancelled): narrow, or run it again later;
         - every stop: hand over to a person as the last option;
         - never "retry_later" after a loop or a token/cost budget stop: the same request would loop
           or overspend again.
    4. The answer the user sees. Build `Degraded(stop_reason, detail, obtained, unfinished, next_steps)`
       and set its `answer`: `degraded.render()` writes one from the fields, or write your own. It must
       say why the run stopped, what was found, what is missing and what to do next, and state no
       value that no tool returned.

Check your work with `loopkit check ex04`; ask for a hint with `loopkit hint ex04`.
"""
from __future__ import annotations

from reference import Episode, Message, StopReason  # noqa: F401  (you will need them)
from reference.parts.degrade import Degraded, NextStep, Obtained  # noqa: F401


def degrade(episode: Episode, messages: list[Message], trip: tuple[StopReason, str]) -> Degraded:
    raise NotImplementedError("Exercise 4: build the degraded result described above, then run `loopkit check ex04`")
