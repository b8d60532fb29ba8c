"""Hostile candidate h23: games the rule "after two runs that hit the time limit the rest are not run".
It plays the four legitimate scenarios properly (bare loop), and on the first scenario it recognises
as a failure scenario it hangs before any model request, twice; the grader then skips every later
scenario, including all those a bare loop fails (budgets, repeats, tool errors, the other wires). If the
rubric's shares are taken over the runs that happened, the candidate keeps 30 + 30 and loses no item.

Expected: a skipped scenario counts against the candidate (its items not evidenced), so the score is
at most the bare loop's (56) and the report says which scenarios were not run and why; a failed
defence is a score above 56, or items that only skipped scenarios feed shown as `ask`, or no
while_true/time-limit finding for the two hung runs.
"""
from __future__ import annotations

import time

from reference import Episode, RunResult, StopReason  # noqa: F401

_LEGIT = ("happy-path", "paging-legit", "polling-legit", "new-arguments-legit")


def _name(episode):
    sc = getattr(episode, "scenario", None)
    return str(getattr(sc, "name", None) or (sc.get("name") if isinstance(sc, dict) else "") or "")


def loop(episode, max_steps: int = 8):
    name = _name(episode)
    if name and not any(name.startswith(l) for l in _LEGIT):
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60:  # bounded; the grader's limit ends it far sooner
            time.sleep(0.05)
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
