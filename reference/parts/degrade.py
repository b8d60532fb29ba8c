"""Lesson 4: degraded outputs. A run that cannot finish still hands the user something useful.

"max steps reached" tells the user that a run was wasted. A degraded result tells them instead

    why it stopped     the stop reason, in plain words, and a one-line detail
    what was obtained  facts from tool calls that succeeded, each traceable to its tool result
    what is unfinished the task's checklist items that no successful call covered
    what to do next    narrow the request, rephrase it, retry later, hand it over to a person

    degraded = Degrader(final_answer=False)(episode, messages, (StopReason.MAX_STEPS, "no answer after 8 steps"))
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
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Sequence

from ..harness.episode import Episode
from .tool_errors import business_failure
from .guards.fingerprint import is_empty as empty_payload
from ..core.messages import Message, ToolMessage, UserMessage
from ..core.model import Usage
from ..wire.protocol import to_wire
from ..core.result import StopReason, ToolRecord
from ..sim.scenario.schema import ChecklistItem, LimitsDef
from ..sim.tokens import request_tokens

# ---------------------------------------------------------------- the result


@dataclass
class Obtained:
    """One fact: a tool call that succeeded and returned data. `times` counts identical repeats."""

    tool: str
    arguments: dict[str, Any]
    data: Any
    call_id: str  # the call that first returned it: find its ToolMessage in the history by this id
    step: int  # the model request that asked for it (1-based, as in the ledger)
    times: int = 1

    def label(self) -> str:
        return call_label(self.tool, self.arguments)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Tried:
    """A call that ran but brought nothing usable: an empty result, an error, a business failure."""

    tool: str
    arguments: dict[str, Any]
    outcome: str  # "no results", "error: not_found", "business failure: CARD_DECLINED", "raised: ToolTimeout"
    times: int = 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


NEXT_ACTIONS = ("narrow", "rephrase", "retry_later", "hand_over")


@dataclass
class NextStep:
    action: str  # one of NEXT_ACTIONS, for the UI (a button) and for tests
    text: str  # what the user reads

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FinalCall:
    """What happened to the optional last tool-less request (for the trace and the cost report)."""

    status: str  # "used" | "skipped" | "failed" | "rejected"
    reason: str
    estimate: dict[str, float] = field(default_factory=dict)  # input_tokens, output_tokens, cost_usd, seconds
    actual: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Degraded:
    stop_reason: StopReason
    detail: str
    obtained: list[Obtained]
    unfinished: list[str]
    next_steps: list[NextStep]
    answer: str = ""  # the text the user sees; `render()` writes one from the fields above
    done: list[str] = field(default_factory=list)  # checklist items a successful call covered
    tried: list[Tried] = field(default_factory=list)
    final: Optional[FinalCall] = None

    def to_dict(self) -> dict[str, Any]:
        reason = StopReason(self.stop_reason)
        return {
            "stop_reason": reason.value, "kind": reason.kind, "detail": self.detail,
            "obtained": [o.to_dict() for o in self.obtained], "tried": [t.to_dict() for t in self.tried],
            "done": list(self.done), "unfinished": list(self.unfinished),
            "next_steps": [s.to_dict() for s in self.next_steps], "answer": self.answer,
            "final": self.final.to_dict() if self.final else None,
        }

    def render(self, headline: bool = True, found: bool = True) -> str:
        """A readable answer from the fields: why, what was found, what was tried, what is missing, what
        to do next, and the stop reason with its technical detail."""
        reason = StopReason(self.stop_reason)
        parts = [f"I could not finish this request: {WHY.get(reason, reason.value)}."][:int(headline)]
        if found:
            if self.obtained:
                shown = self.obtained[:SHOW]
                more = len(self.obtained) - len(shown)
                parts.append("What I found:\n" + "\n".join(
                    f"- {o.label()}: {preview(o.data)}" + (f" (same result {o.times} times)" if o.times > 1 else "")
                    for o in shown) + (f"\n- and {more} more result(s), listed in the full record" if more else ""))
            else:
                parts.append("I found nothing usable before stopping.")
        if self.tried:
            parts.append("What I tried without result:\n" + "\n".join(
                f"- {call_label(t.tool, t.arguments)}: {t.outcome}" + (f" ({t.times} times)" if t.times > 1 else "")
                for t in self.tried))
        if self.unfinished:
            parts.append("Not done yet:\n" + "\n".join(f"- {item}" for item in self.unfinished))
        if self.next_steps:
            parts.append("What you can do next:\n" + "\n".join(f"- {s.text}" for s in self.next_steps))
        detail = self.detail if self.detail.startswith(reason.value) else f"{reason.value}: {self.detail}"
        parts.append(f"(Stopped, {detail})")  # the technical note, for support and the trace, goes last
        return "\n\n".join(parts)

    def __str__(self) -> str:
        return self.answer or self.render()


SHOW = 8  # facts listed in the answer; the structured result keeps them all

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
}


# ---------------------------------------------------------------- facts from the ledger


def records(episode: Episode) -> list[tuple[int, ToolRecord]]:
    """Every tool attempt of the run, with the step that asked for it (0 = before any model call)."""
    out = [(0, r) for r in episode.ledger.orphan_tools]
    out += [(s.step, r) for s in episode.ledger.steps for r in s.tools]
    return out


def is_business_failure(data: Any) -> bool:
    """HTTP 200 whose body says it failed: the same rule lesson 5's executor applies (`errors.business_failure`)."""
    return business_failure(data) is not None


def is_empty(data: Any) -> bool:
    """No information, at any depth ({"results": []}, {"results": [{"items": []}]}): the guard's own rule."""
    return empty_payload(data)


def outcome_of(record: ToolRecord) -> str:
    """"ok" for a usable fact, otherwise why the attempt brought nothing."""
    if record.outcome is None:
        return f"raised: {record.exception or 'an exception'}"
    if not record.ok:
        return f"error: {record.outcome.get('error_type') or 'unknown'}"
    data = record.outcome.get("data")
    if is_business_failure(data):
        return f"business failure: {data.get('error_code') or 'rejected'}"
    if is_empty(data):
        return "no results"
    return "ok"


def _key(*values: Any) -> str:
    return json.dumps(values, sort_keys=True, ensure_ascii=False, default=str)


def gather(episode: Episode) -> tuple[list[Obtained], list[Tried]]:
    """The facts (successful calls with data) and the fruitless attempts, repeats folded together."""
    obtained: dict[str, Obtained] = {}
    tried: dict[str, Tried] = {}
    for step, record in records(episode):
        outcome = outcome_of(record)
        if outcome == "ok":
            data = record.outcome["data"]
            key = _key(record.name, record.arguments, data)
            if key in obtained:
                obtained[key].times += 1
            else:
                obtained[key] = Obtained(record.name, dict(record.arguments), data, record.call_id, step)
        else:
            key = _key(record.name, record.arguments, outcome)
            if key in tried:
                tried[key].times += 1
            else:
                tried[key] = Tried(record.name, dict(record.arguments), outcome)
    # an attempt that failed and later succeeded (a retry) is not "tried without result"
    got = {_key(o.tool, o.arguments) for o in obtained.values()}
    return list(obtained.values()), [t for t in tried.values() if _key(t.tool, t.arguments) not in got]


def covers(item: ChecklistItem, obtained: Sequence[Obtained]) -> bool:
    """A checklist item with a tool is covered by a successful call of that tool whose arguments
    include its `when`. An item without a tool needs the final answer, which a degraded run lacks."""
    if item.tool is None:
        return False
    when = item.when or {}
    return any(o.tool == item.tool and all(k in o.arguments and o.arguments[k] == v for k, v in when.items())
               for o in obtained)


def checklist(episode: Episode, obtained: Sequence[Obtained]) -> tuple[list[str], list[str]]:
    """(done, unfinished) item texts. A task without a checklist still lacks its answer."""
    items = episode.scenario.checklist
    if not items:
        return [], ["a final answer to the request"]
    done = [i.item for i in items if covers(i, obtained)]
    return done, [i.item for i in items if not covers(i, obtained)]


REPHRASE_WHY = {
    StopReason.MAX_STEPS: ", so that fewer lookups are needed",
    StopReason.REPEATED_CALL: ": the same lookup kept coming back with the same answer",
    StopReason.SAME_RESULT: ": different lookups kept returning the same answer",
    StopReason.NO_PROGRESS: ": the lookups so far brought back nothing new",
    StopReason.ALTERNATION: ", if you know which of the two steps should come first",
}


def next_steps(reason: StopReason, unfinished: Sequence[str], tool_items: Sequence[str] = ()) -> list[NextStep]:
    """Concrete ways out for this stop. `tool_items` are the unfinished items a tool could cover."""
    reason = StopReason(reason)
    first = list(tool_items[:1]) or list(unfinished[:1])
    texts = {
        "narrow": ("Narrow the request so that less has to be read: ask for one part at a time"
                   + (f", e.g. only \"{first[0]}\"" if first else "") + "."),
        "rephrase": ("Rephrase the question with something more specific (an exact name, id, error text or "
                     "time range)" + REPHRASE_WHY.get(reason, "") + "."),
        "retry_later": {StopReason.TIME_BUDGET: "Try again later, when the tools answer faster.",
                        StopReason.ERROR: "Try again later: the model service failed just now."}.get(
                            reason, "Try again later: a tool it needs kept failing just now."),
        "hand_over": "Hand it over to a person (support or on-call), with this summary attached.",
    }
    if reason is StopReason.ALTERNATION:
        texts["hand_over"] = ("Hand it over to a person: two systems are each waiting for the other, and only "
                              "someone with access can unblock them. Attach this summary.")
    if reason is StopReason.TIME_BUDGET:
        texts["narrow"] = ("Ask for fewer items at once" + (f", e.g. only \"{first[0]}\"" if first else "")
                           + ": each lookup takes a while.")
    return [NextStep(action, texts[action]) for action in NEXT_STEPS.get(reason, ("hand_over",))]


def call_label(tool: str, arguments: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return f"{tool}({args})"


def preview(data: Any, limit: int = 160) -> str:
    """The data as compact JSON, cut at `limit` characters (the structured result keeps it whole)."""
    text = json.dumps(data, ensure_ascii=False, separators=(", ", ": "), default=str)
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + " … (cut here; the full data is in the structured result)"


# ---------------------------------------------------------------- grounding


VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,:/_-]*[A-Za-z0-9]|\d")


SMALL = re.compile(r"\d{1,2}")  # counts ("3 searches", "after 8 steps") are the run's own, not claims


def _plain(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", text).casefold()  # 1,200,000 -> 1200000


def values_in(text: str) -> list[str]:
    """Number-like and id-like tokens: 2026-12-02, A1234, v2.31.0, 1,200,000, 0.12, 502."""
    return [t for t in VALUE.findall(text) if any(c.isdigit() for c in t)]


def ungrounded(text: str, sources: Sequence[str]) -> list[str]:
    """Values in `text` that appear in none of the sources (one- and two-digit counts aside).

    Conservative: a value written differently ("1.2 million" for 1200000) counts as ungrounded, so a
    rephrased figure costs the prose answer, never the facts. Lenient on substrings ("120" is found
    inside "1200000"). Words are not checked: a "delivered" invented from nothing passes."""
    corpus = _plain(" ".join(sources))
    return [v for v in dict.fromkeys(values_in(text)) if not SMALL.fullmatch(v) and _plain(v) not in corpus]


def grounding_sources(episode: Episode, messages: Sequence[Message], degraded: Degraded) -> list[str]:
    """What a value in the answer may come from: the request, the stop detail, the checklist, the facts,
    and every tool result the model was shown (quoting an error's date is not inventing it)."""
    out = [episode.scenario.user, degraded.detail] + [i.item for i in episode.scenario.checklist]
    out += [json.dumps([o.arguments, o.data], ensure_ascii=False, default=str) for o in degraded.obtained]
    out += [m.content for m in messages if isinstance(m, ToolMessage)]
    return out


# ---------------------------------------------------------------- the part


FINAL_NOTE = ("[The run stopped: {why}. Do not call tools. Answer my request now using only facts from the tool "
              "results above, and say plainly what is still missing.]")


@dataclass
class Degrader:
    """The `degrade` part of the guarded loop: `Degrader()(episode, messages, trip) -> Degraded`.

    With `final_answer=True`, one last request with `tool_choice="none"` asks the model to write the
    answer from what was gathered. Its price is one more request over the *whole* history, so it
    costs about what one more step would cost. How it is paid for:

    - the reserve: the loop may spend only `1 - reserve_fraction` of each limit (tokens, cost,
      seconds); the budget stops it there (`RunBudget(final_answer_share=reserve_fraction)`, or any
      budget given `loop_limits(limits)`). The slice left over pays for the final answer.
    - the check: whatever the budget did, the degrader makes the call only if its estimate fits in
      what is left of the full limits: `budget.headroom(episode)` when given the run's budget
      (lesson 2's `RunBudget`, whose `final_answer_share` is this reserve), else the scenario's
      limits minus what the ledger has used. The
      estimate is the request's input tokens (`tokens.request_tokens` over `protocol.to_wire`, the
      same count the model will charge), plus `answer_tokens` of output, priced with the
      scenario's pricing, and `answer_seconds` (or the slowest request so far, if slower) of time.
      If it does not fit, or the run stopped on a provider error, or nothing was obtained, the call
      is skipped.
    - the cheaper request: with `clip_results=N` each tool result is cut to N characters in the
      final request only (ids untouched, so it stays protocol-valid); on big contexts this is what
      makes the final answer fit at all.
    - the fallback: if the call raises, returns no text, tries to call a tool anyway, or states a
      value that no tool returned, its text is dropped and the structured answer is used.

    Either way the structured fields are the same: the prose is an extra, never the source of facts.
    """

    final_answer: bool = True
    reserve_fraction: float = 0.25
    answer_tokens: int = 400  # what the final answer may take (a real request would set max_tokens)
    answer_seconds: float = 10.0  # how long writing it may take: measure yours (p95 of final answers)
    clip_results: Optional[int] = None  # cut each tool result in the final request to this many characters
    budget: Any = None  # the run's budget, if it has `headroom(episode)` (lesson 2's RunBudget): what is
    #                     left of *its* limits is what the final answer may spend; else the scenario's limits

    def __post_init__(self) -> None:
        if not 0.0 <= self.reserve_fraction < 1.0:
            raise ValueError(f"reserve_fraction must be in [0, 1), got {self.reserve_fraction}")
        if self.answer_tokens < 1:
            raise ValueError(f"answer_tokens must be at least 1, got {self.answer_tokens}")
        if self.clip_results is not None and self.clip_results < 20:
            raise ValueError(f"clip_results must be at least 20 characters (or None), got {self.clip_results}")

    def loop_limits(self, limits: LimitsDef) -> LimitsDef:
        """The limits the loop itself may spend: each budget minus the reserve for the final answer.
        Steps are not scaled: the final answer is at most one extra, tool-less request."""
        keep = 1.0 - (self.reserve_fraction if self.final_answer else 0.0)
        return limits.model_copy(update={
            "max_tokens": None if limits.max_tokens is None else max(1, int(limits.max_tokens * keep)),
            "max_cost_usd": None if limits.max_cost_usd is None else limits.max_cost_usd * keep,
            "max_seconds": None if limits.max_seconds is None else limits.max_seconds * keep,
        })

    def __call__(self, episode: Episode, messages: list[Message], trip: tuple[StopReason, str]) -> Degraded:
        reason, detail = StopReason(trip[0]), trip[1]
        if reason is StopReason.COMPLETED:
            raise ValueError("a completed run is not degraded: return the model's answer instead")
        obtained, tried = gather(episode)
        done, unfinished = checklist(episode, obtained)
        tool_items = [i.item for i in episode.scenario.checklist if i.tool and i.item in unfinished]
        degraded = Degraded(reason, detail, obtained, unfinished, next_steps(reason, unfinished, tool_items),
                            done=done, tried=tried)
        degraded.answer = degraded.render()
        if self.final_answer:
            self._final(episode, messages, degraded)
        return degraded

    # -- the optional last answer --------------------------------------------------------------
    def estimate(self, episode: Episode, request: Sequence[Message]) -> dict[str, float]:
        tools = episode.tools.specs
        input_tokens = request_tokens(to_wire(request, tools, episode.scenario.model.wire))
        usage = Usage(input_tokens, self.answer_tokens)
        slowest = max((s.model_seconds for s in episode.ledger.steps), default=0.0)
        return {"input_tokens": input_tokens, "output_tokens": self.answer_tokens,
                "cost_usd": episode.ledger.pricing.cost(usage), "seconds": max(slowest, self.answer_seconds)}

    def headroom(self, episode: Episode) -> dict[str, float]:
        """What is left of each limit: the budget's own view if it has one, else the scenario's limits
        minus what the ledger has spent. Steps are not counted: the final answer is one extra request."""
        if self.budget is not None and hasattr(self.budget, "headroom"):
            return dict(self.budget.headroom(episode))
        limits, ledger = episode.limits, episode.ledger
        left = {"tokens": (limits.max_tokens, ledger.usage.total_tokens),
                "cost_usd": (limits.max_cost_usd, ledger.cost_usd),
                "seconds": (limits.max_seconds, episode.clock.elapsed)}
        return {k: limit - spent for k, (limit, spent) in left.items() if limit is not None}

    def room(self, episode: Episode, estimate: dict[str, float]) -> Optional[str]:
        """Why the call does not fit in what is left of the limits (None if it fits)."""
        left = self.headroom(episode)
        need = {"tokens": estimate["input_tokens"] + estimate["output_tokens"], "cost_usd": estimate["cost_usd"],
                "seconds": estimate["seconds"]}
        fmt = {"tokens": "{:,.0f} tokens", "cost_usd": "${:.4f}", "seconds": "{:.1f} s"}
        for name in ("tokens", "cost_usd", "seconds"):
            if name in left and need[name] > left[name]:
                have = fmt[name].format(left[name]) if left[name] > 0 else "nothing"
                return f"needs ~{fmt[name].format(need[name])}, {have} left"
        return None

    def _final(self, episode: Episode, messages: list[Message], degraded: Degraded) -> None:
        if degraded.stop_reason is StopReason.ERROR:
            degraded.final = FinalCall("skipped", "the run stopped on a provider error; do not call it again")
            return
        if not degraded.obtained:
            degraded.final = FinalCall("skipped", "nothing was obtained: there is nothing to write an answer from")
            return
        note = UserMessage(FINAL_NOTE.format(why=WHY.get(degraded.stop_reason, degraded.stop_reason.value)))
        request = [*(clipped(messages, self.clip_results) if self.clip_results else messages), note]
        estimate = self.estimate(episode, request)
        too_big = self.room(episode, estimate)
        if too_big:
            degraded.final = FinalCall("skipped", "over budget: " + too_big, estimate)
            return
        before_usage, before_cost, before_time = episode.ledger.usage, episode.ledger.cost_usd, episode.clock.elapsed
        try:
            turn = episode.model.complete(request, episode.tools.specs, tool_choice="none")
        except Exception as exc:  # the fallback must never crash the run it is rescuing
            degraded.final = FinalCall("failed", f"the request raised {type(exc).__name__}", estimate)
            return
        used = episode.ledger.usage
        actual = {"input_tokens": used.input_tokens - before_usage.input_tokens,
                  "output_tokens": used.output_tokens - before_usage.output_tokens,
                  "cost_usd": episode.ledger.cost_usd - before_cost, "seconds": episode.clock.elapsed - before_time}
        if turn.tool_calls:
            # not appended: a tool call nobody answers would make the history invalid
            degraded.final = FinalCall("rejected", "the model tried to call a tool", estimate, actual)
            return
        messages.extend([note, turn.message])  # the trace shows the request that was paid for (results unclipped)
        text = (turn.text or "").strip()
        if not text or turn.finish_reason == "length":
            degraded.final = FinalCall("rejected", "no usable text" if not text else "the answer was cut off",
                                       estimate, actual)
            return
        invented = ungrounded(text, grounding_sources(episode, messages, degraded))
        if invented:
            degraded.final = FinalCall("rejected", "states values no tool returned: " + ", ".join(invented[:5]),
                                       estimate, actual)
            return
        degraded.final = FinalCall("used", "written from the tool results", estimate, actual)
        degraded.answer = text + "\n\n" + degraded.render(headline=False, found=False)


def clipped(messages: Sequence[Message], limit: int) -> list[Message]:
    """The history with each long tool result cut to `limit` characters. The call ids are untouched, so
    the request stays protocol-valid; the cut text travels as a string in `data`, marked as clipped."""
    out: list[Message] = []
    for m in messages:
        if isinstance(m, ToolMessage) and len(m.content) > limit:
            body = {"ok": not m.is_error, "data": m.content[:limit] + " …", "clipped_chars": len(m.content) - limit}
            m = ToolMessage(m.call_id, json.dumps(body, ensure_ascii=False), is_error=m.is_error)
        out.append(m)
    return out
