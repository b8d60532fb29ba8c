"""Oversized results are the executor's job: a result larger than a fair share of what is left of the
budget is clipped, never a reason to end a run that could finish.

A result stays in the context, so every request the run still makes sends it again. With R tokens left
of the budget and S requests left (the step limit's), a result of more than R / S tokens would alone
take more than its share of every one of them: the budget would stop the run on the next request or the
one after, though the model may need only that request to answer. Clipped instead, with its head and
tail (`clip`, the degrader's clipping too) and a note saying what was cut and how to ask for the rest,
it costs its share and the run goes on. Errors are left whole: the executor's are short by construction,
and their fields (`error_type`, `retryable`) must stay readable.

The legitimate case it must not fire on: a result of any size when the run has room for it (a run with
no token or cost budget, or a result within its share) reaches the model whole.
"""
from __future__ import annotations

from typing import Any, Optional

from ...core.messages import ToolCall, ToolMessage
from ...core.toolresult import clip
from ...harness.episode import Episode
from ...sim.tokens import count

CHARS_PER_TOKEN = 4  # the kit's token estimate (reference/sim/tokens.py)
FLOOR_CHARS = 400  # a clipped result still shows this much: a head and a tail the model can judge it by


def fair_share(episode: Episode, budget: Any) -> Optional[int]:
    """The most tokens one new result may take: what is left of the budget over the requests left to send it
    (None when the run has no token or cost budget, so any size fits)."""
    if budget is None or not hasattr(budget, "headroom"):
        return None
    left = budget.headroom(episode)
    price = episode.ledger.pricing.input_per_mtok / 1e6  # dollars per input token
    room = [left["tokens"]] if "tokens" in left else []
    if "cost_usd" in left and price > 0:
        room.append(left["cost_usd"] / price)
    if not room:
        return None
    step_limits = [n for n in (left.get("steps"), (episode.max_steps or 0) - len(episode.ledger.steps)) if n]
    requests = max(1, min(step_limits, default=1))
    return max(0, int(min(room) / requests))


def clip_oversized(episode: Episode, call: ToolCall, result: ToolMessage, budget: Any) -> ToolMessage:
    """The result as it is if it fits its fair share, else its head and tail with a note (traced)."""
    if result.is_error:  # a translated error is short, and its fields (error_type, retryable) must stay readable
        return result
    share = fair_share(episode, budget)
    if share is None or count(result.content) <= share:
        return result
    limit = max(FLOOR_CHARS, share * CHARS_PER_TOKEN)
    if len(result.content) <= limit:
        return result
    ask = (f"To see what was cut, call {call.name} again asking for less at a time (a narrower query, a smaller "
           "page or range), if its parameters allow it.")
    episode.trace.event("clipped", call_id=call.id, tool=call.name, chars=len(result.content), kept=limit)
    return ToolMessage(call.id, clip(result.content, limit, ask=ask))
