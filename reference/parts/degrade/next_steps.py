"""What to do next after a stop: the stop reason in the user's words, and the one table of ways out.

Every degraded answer, and the lesson's notebook, read the stop -> next steps mapping from here.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence

from ...core.result import StopReason
from ...sim.scenario.schema import NEXT_ACTIONS  # the four ways out, named once (a scenario's expect checks them)


@dataclass
class NextStep:
    action: str  # one of NEXT_ACTIONS, for the UI (a button) and for tests
    text: str  # what the user reads

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# the stop reason in the user's words
WHY: dict[StopReason, str] = {
    StopReason.MAX_STEPS: "it used all the steps it is allowed",
    StopReason.TOKEN_BUDGET: "reading more would exceed its token budget",
    StopReason.COST_BUDGET: "going on would exceed its cost budget",
    StopReason.TIME_BUDGET: "going on would exceed its time budget",
    StopReason.REPEATED_CALL: "it kept repeating the same lookup",
    StopReason.ALTERNATION: "it went back and forth between two lookups that wait on each other",
    StopReason.SAME_RESULT: "different lookups kept returning the same result",
    StopReason.NO_PROGRESS: "its last steps found nothing new",
    StopReason.CIRCUIT_OPEN: "the tools it needs kept failing",
    StopReason.ERROR: "the service it depends on failed",
    StopReason.CANCELLED: "you stopped it",
}

# which ways out fit which stop, most useful first. Never "retry later" after a loop or a budget stop:
# the same request would loop or overspend again. Always a person as the last resort.
NEXT_STEPS: dict[StopReason, tuple[str, ...]] = {
    StopReason.MAX_STEPS: ("narrow", "rephrase", "hand_over"),
    StopReason.TOKEN_BUDGET: ("narrow", "hand_over"),
    StopReason.COST_BUDGET: ("narrow", "hand_over"),
    StopReason.TIME_BUDGET: ("narrow", "retry_later", "hand_over"),
    StopReason.REPEATED_CALL: ("rephrase", "hand_over"),
    StopReason.ALTERNATION: ("hand_over", "rephrase"),
    StopReason.SAME_RESULT: ("rephrase", "hand_over"),
    StopReason.NO_PROGRESS: ("rephrase", "hand_over"),
    StopReason.CIRCUIT_OPEN: ("retry_later", "hand_over"),
    StopReason.ERROR: ("retry_later", "hand_over"),
    StopReason.CANCELLED: ("narrow", "retry_later", "hand_over"),  # the user chose to stop: pick up from what was found
}

# The error's class decides, not the stop reason alone: a failure that may heal (a timeout, a 429, a 529)
# says "retry later"; one that will not (a 400, a 401, a bug) says "change the request" or "give up" (a
# person must fix it), never "retry later".
NOT_RETRYABLE: dict[StopReason, tuple[str, ...]] = {
    StopReason.ERROR: ("rephrase", "hand_over"),
    StopReason.CIRCUIT_OPEN: ("hand_over",),
    StopReason.TIME_BUDGET: ("narrow", "hand_over"),
}


REPHRASE_WHY = {
    StopReason.MAX_STEPS: ", so that fewer lookups are needed",
    StopReason.REPEATED_CALL: ": the same lookup kept coming back with the same answer",
    StopReason.SAME_RESULT: ": different lookups kept returning the same answer",
    StopReason.NO_PROGRESS: ": the lookups so far brought back nothing new",
    StopReason.ALTERNATION: ", if you know which of the two steps should come first",
}


def next_steps(reason: StopReason, unfinished: Sequence[str], tool_items: Sequence[str] = (), *,
               retryable: Optional[bool] = None, retry_after: Optional[float] = None) -> list[NextStep]:
    """Concrete ways out for this stop. `tool_items` are the unfinished items a tool could cover;
    `retryable` and `retry_after` are what the part that stopped the run knew of the failure's class."""
    reason = StopReason(reason)
    first = list(tool_items[:1]) or list(unfinished[:1])
    texts = {
        "narrow": ("Narrow the request so that less has to be read: ask for one part at a time"
                   + (f", e.g. only \"{first[0]}\"" if first else "") + "."),
        "rephrase": ("Rephrase the question with something more specific (an exact name, id, error text or "
                     "time range)" + REPHRASE_WHY.get(reason, "") + "."),
        "retry_later": {StopReason.TIME_BUDGET: "Try again later, when the tools answer faster.",
                        StopReason.ERROR: "Try again later: the model service failed just now.",
                        StopReason.CANCELLED: "Run it again when you are ready: what was found so far is above."}.get(
                            reason, "Try again later: a tool it needs kept failing just now."),
        "hand_over": "Hand it over to a person (support or on-call), with this summary attached.",
    }
    if reason is StopReason.ALTERNATION:
        texts["hand_over"] = ("Hand it over to a person: two systems are each waiting for the other, and only "
                              "someone with access can unblock them. Attach this summary.")
    if reason is StopReason.TIME_BUDGET:
        texts["narrow"] = ("Ask for fewer items at once" + (f", e.g. only \"{first[0]}\"" if first else "")
                           + ": each lookup takes a while.")
    if retry_after is not None:
        texts["retry_later"] = f"Retry after {retry_after:g} s: the service asked to wait that long before trying again."
    if reason is StopReason.ERROR and retryable is False:
        texts["rephrase"] = "Change the request: the service refused this one, and sending it again will not help."
    actions = NEXT_STEPS.get(reason, ("hand_over",))
    if retryable is False and reason in NOT_RETRYABLE:
        actions = NOT_RETRYABLE[reason]
    elif retryable and retry_after is not None and "retry_later" in actions:
        actions = ("retry_later",) + tuple(a for a in actions if a != "retry_later")  # the wait is the way out
    return [NextStep(action, texts[action]) for action in actions]
