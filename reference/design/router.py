"""The intent router: decide the task family in code, then offer only that family's tools.

A model offered twenty tools has twenty ways to be wrong at every step, and a tool that displays
something (a card, a chart) competes with the tools that answer. The router narrows the candidate
set before the model sees it, and settles in code what the request already says (a period of "two
weeks" is `14d`), so the model cannot ask for 30 days and then for 14.

    route = route_for(scenario)    # Route(intent, tools, slots, renders, confidence, question)

A router that is not sure never falls back to every tool: that is the design fault it exists to fix.
An unsure route offers a small safe set (at most as many tools as a known intent does, none that its
own MCP annotations mark destructive), the ones the request's words point to when there are more;
when the words point to none, it asks the user a clarifying question instead of guessing.
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
    routed: bool = True  # False: no intent matched; the route is a small safe set, or a question
    question: Optional[str] = None  # unsure and nothing to offer: ask the user, run nothing

    @property
    def confidence(self) -> str:
        return "intent" if self.routed else "unsure"


def _words(text: str) -> set[str]:
    """Content words, singular: 'flights' and search_flights meet on 'flight'."""
    return {w.removesuffix("s") for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")) if len(w) > 3}


def destructive(tool) -> bool:
    """Marked destructive by its own MCP annotations (a hint; a tool with none is not assumed either way)."""
    hints = tool.annotations
    return bool(hints) and hints.destructiveHint is True and hints.readOnlyHint is not True


MAX_UNSURE = max(len(i.tools) for i in INTENTS)  # unsure, offer no more tools than a known intent does


def unsure_route(scenario: Scenario, limit: int = MAX_UNSURE) -> Route:
    """No intent matched: a small safe set, or a clarifying question (never every tool)."""
    safe = [t for t in scenario.tools if not destructive(t)]
    if len(safe) > limit:
        asked = _words(scenario.user)
        scored = [(len(asked & _words(f"{t.name} {t.description}")), i, t) for i, t in enumerate(safe)]
        safe = [t for score, _, t in sorted(scored, key=lambda x: (-x[0], x[1])) if score][:limit]
    if safe:
        return Route(scenario.intent, tuple(t.name for t in safe), routed=False)
    kinds = "; ".join(t.description.rstrip(".") for t in scenario.tools[:4])
    return Route(scenario.intent, (), routed=False,
                 question=f"I want to be sure I do the right thing. Which of these do you need: {kinds}?")


def route_for(scenario: Scenario, intents: tuple[Intent, ...] = INTENTS) -> Route:
    """The first intent whose keywords all appear in the request; else an unsure route (`unsure_route`):
    a small safe set, or a clarifying question. The checklist still ends the run."""
    text = scenario.user.lower()
    names = [t.name for t in scenario.tools]
    for intent in intents:
        if all(k in text for k in intent.keywords) and set(intent.tools) <= set(names):
            slots = {s: v for s in intent.slots if (v := SLOT_FILLERS[s](scenario.user)) is not None}
            return Route(intent.name, intent.tools, slots, intent.renders)
    return unsure_route(scenario)
