"""The intent router: decide the task family in code, then offer only that family's tools.

A model offered twenty tools has twenty ways to be wrong at every step, and a tool that displays
something (a card, a chart) competes with the tools that answer. The router narrows the candidate
set before the model sees it, and settles in code what the request already says (a period of "two
weeks" is `14d`), so the model cannot ask for 30 days and then for 14.

    route = route_for(scenario)    # Route(intent, tools, slots, renders)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..sim.scenario.schema import Scenario

NUMBERS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "six": 6, "seven": 7, "ten": 10, "fourteen": 14, "thirty": 30}
UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30}
PERIOD = re.compile(r"\b(\d+|" + "|".join(NUMBERS) + r")?[\s-]*(day|week|fortnight|month)s?\b", re.IGNORECASE)


def settle_period(text: str) -> Optional[str]:
    """'the last two weeks' -> '14d', 'past month' -> '30d', '10 days' -> '10d'; None if the text names none."""
    match = PERIOD.search(text)
    if not match:
        return None
    count = match.group(1) or "one"
    n = int(count) if count.isdigit() else NUMBERS[count.lower()]
    return f"{n * UNIT_DAYS[match.group(2).lower()]}d"


SLOT_FILLERS: dict[str, Callable[[str], Optional[str]]] = {"period": settle_period}


@dataclass(frozen=True)
class Intent:
    """A task family: the words that name it, the tools it needs, the slots code fills in, and what
    code renders once the task is done (a UI decision is the product's, not the model's)."""

    name: str
    keywords: tuple[str, ...]  # all must appear in the request
    tools: tuple[str, ...]
    slots: tuple[str, ...] = ()
    renders: Optional[str] = None


INTENTS: tuple[Intent, ...] = (
    Intent("record_and_trend", ("record", "trend"), ("record_metric", "get_metric_trend"), ("period",),
           renders="trend_card"),
    Intent("trend", ("trend",), ("get_metric_trend",), ("period",), renders="trend_card"),
)


@dataclass(frozen=True)
class Route:
    intent: str
    tools: tuple[str, ...]  # the candidate set: what the model is offered, at most
    slots: dict[str, str] = field(default_factory=dict)  # settled in code: the model's value is replaced
    renders: Optional[str] = None
    routed: bool = True  # False: no intent matched, every tool stays offered


def route_for(scenario: Scenario, intents: tuple[Intent, ...] = INTENTS) -> Route:
    """The first intent whose keywords all appear in the request; else every tool, unrouted (a router
    narrows only for the intents it knows; the checklist still ends the run)."""
    text = scenario.user.lower()
    names = [t.name for t in scenario.tools]
    for intent in intents:
        if all(k in text for k in intent.keywords) and set(intent.tools) <= set(names):
            slots = {s: v for s in intent.slots if (v := SLOT_FILLERS[s](scenario.user)) is not None}
            return Route(intent.name, intent.tools, slots, intent.renders)
    return Route(scenario.intent, tuple(names), routed=False)
