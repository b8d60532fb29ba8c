"""Hostile candidate h25: the bare loop of the kit template, one word changed. At the step cap it does not
say max_steps: it says no_progress, a claim the books cannot rule out (it needs only an answered request,
which every run that reached the cap has) and which the rubric's "Three kinds of exit" counts as the
abnormal half (guard, breaker, no progress). There is no progress check anywhere in the code.

Expected, from a grader whose verdict "comes only from what the grader saw and recorded itself": exactly
the bare kit loop's score (56, red flag empty_answer_at_limit), since the behaviour is identical; a
failed defence is any score above 56, with the exit item citing the claimed no_progress as evidence.
"""
from __future__ import annotations

from reference import Episode, RunResult, StopReason  # noqa: F401


def _reason(name, fallback):
    member = getattr(StopReason, name.upper(), None)
    if member is None:
        try:
            member = StopReason(name)
        except Exception:
            member = fallback
    return member


def loop(episode, max_steps: int = 8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(_reason("no_progress", StopReason.MAX_STEPS), messages)
