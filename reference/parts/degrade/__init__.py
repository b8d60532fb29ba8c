"""Lesson 4: degraded outputs. A run that cannot finish still hands the user something useful.

"max steps reached" tells the user that a run was wasted. A degraded result tells them instead

    why it stopped     the stop reason, in plain words, and a one-line detail
    what was obtained  facts from tool calls that succeeded, each traceable to its tool result
    what is unfinished the task's checklist items that no successful call covered
    what to do next    narrow the request, rephrase it, retry later, hand it over to a person

    degraded = Degrader(final_answer=False)(episode, messages, Stop(StopReason.MAX_STEPS, "no answer after 8 steps"))
    print(degraded.answer)          # the text the user sees
    degraded.to_dict()              # the same, structured, for the UI and the trace

Where the facts come from: the episode's ledger, which recorded every tool attempt with its
structured outcome. Not from the model's text (it may be wrong), not from the history's
interventions or "not run" answers (nothing ran), not from errors, and not from a business failure
(HTTP 200 with `"success": false` in the body). A success whose data is empty (no results) is not a
fact either: it goes to `tried`, so the user sees what was looked for and found nothing.

Optionally one last model request with `tool_choice="none"` writes the answer in prose from what
was gathered. It is paid from what is left of the run's limits, and skipped when its estimated cost
does not fit (see `Degrader` for how this meets the budget of lesson 2). Its text is kept only if
every number and identifier in it appears in a tool result or in the request: a summary that
invents a date or an amount is dropped for the structured answer.

The package, by job, each module importing only those above it:

    next_steps.py  the stop reason in plain words (WHY) and the one table of ways out (NEXT_STEPS)
    result.py      Degraded and its parts (Obtained, Tried, FinalCall), and how it reads (render)
    evidence.py    the facts and the fruitless attempts, from the ledger; the checklist, done or not
    grounding.py   the values a prose answer states that no tool returned
    degrader.py    Degrader, the `degrade` part, with the optional last tool-less request
"""
from .degrader import Degrader
from .next_steps import NextStep
from .result import Degraded, FinalCall, Obtained, Tried

__all__ = ["Degraded", "Degrader", "FinalCall", "NextStep", "Obtained", "Tried"]
