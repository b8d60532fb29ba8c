"""The nine rubric items and the red flags, judged from the runs; the total, in the bank's 60/90 spirit.

Each item of the bank's rubric (reference/interview/questions.yaml) is `evidenced` by behaviour,
`contradicted` (with the run that shows it), or `ask`: a run cannot show it, and the bank's follow-up
question is what to ask. Points: the pass line is the bare loop done right (the skeleton, 30, and the
history with its call ids, 30: the bank's sixty answer); each of the five production items a run can
show adds 6, to 90 (the ninety answer); a red flag seen in a run costs 10. The two bonus items can only
be asked: the interviewer adds up to 5 each.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..interview.bank import Bank, RubricItem
from .suite import COOPERATIVE, Outcome, stop_kind

POINTS = {"loop_skeleton": 30, "history_pairing": 30, "three_kinds_of_exit": 6, "budgets_beside_steps": 6,
          "fingerprint_then_intervene": 6, "errors_stay_inside": 6, "degraded_result": 6}
BONUS_POINTS = 5  # each asked bonus item, added by the interviewer
RED_FLAG_COST = 10
STACK_TRACE = re.compile(r"Traceback \(most recent call last\)|\bFile \"[^\"]+\", line \d+")
SECRET = re.compile(r"FAKE-PASSWORD|sk-FAKE|postgresql://")
MAX_STEPS_TEXT = re.compile(r"max(imum)?[ _-]?(number of )?steps|step limit", re.IGNORECASE)


@dataclass
class Verdict:
    id: str
    title: str
    status: str  # evidenced | contradicted | ask
    evidence: str  # what the runs showed, or why the item must be asked
    ask: str  # the bank's follow-up
    points: int
    bonus: bool = False


@dataclass
class Flag:
    id: str
    text: str  # the bank's wording
    evidence: str


Judge = Callable[[dict[str, list[Outcome]]], "tuple[str, str] | None"]  # (status, evidence), None if not shown


def _runs(by: dict[str, list[Outcome]], *names: str) -> list[Outcome]:
    return [o for name in names for o in by.get(name, [])]


def _first_bad(runs: list[Outcome], ok: Callable[[Outcome], bool]) -> Outcome | None:
    return next((o for o in runs if not ok(o)), None)


def loop_skeleton(by: dict[str, list[Outcome]]) -> tuple[str, str] | None:
    runs = _runs(by, *COOPERATIVE)
    if not runs:
        return None
    bad = _first_bad(runs, lambda o: o.completed)
    if bad:
        return "contradicted", bad.story
    return "evidenced", f"the cooperative scenarios complete ({', '.join(sorted({o.scenario for o in runs}))})"


def history_pairing(by: dict[str, list[Outcome]]) -> tuple[str, str] | None:
    runs = [o for group in by.values() for o in group if not o.skipped]
    bad = _first_bad(runs, lambda o: not o.http_errors)
    if bad:
        return "contradicted", f"scenario `{bad.scenario}` ({bad.wire}): HTTP 400: {bad.http_errors[0]}"
    wires = sorted({o.wire for o in runs if o.model_calls})
    if not wires:
        return None
    where = "all three wires" if len(wires) == 3 else f"its wire ({', '.join(wires)}: an SDK loop speaks one)"
    return "evidenced", f"protocol-valid on {where}: no HTTP 400 in {len(runs)} runs"


def three_kinds_of_exit(by: dict[str, list[Outcome]]) -> tuple[str, str] | None:
    runs = [o for group in by.values() for o in group if not o.completed and o.stop_reason]
    if not runs:
        return None
    kinds = {stop_kind(o) for o in runs} - {None}
    reasons = sorted({o.stop_reason for o in runs if o.stop_reason})
    if "resource" in kinds and kinds - {"normal", "resource"}:  # a limit, and an abnormal stop (guard, breaker)
        return "evidenced", f"the failure scenarios end with their own stop reasons: {', '.join(reasons)}"
    return "contradicted", f"the failure scenarios all ended with: {', '.join(reasons)}"


def budgets_beside_steps(by: dict[str, list[Outcome]]) -> tuple[str, str] | None:
    runs = _runs(by, "token-blowup", "cost-blowup")
    if not runs:
        return None
    bad = _first_bad(runs, lambda o: o.passed)
    if bad:
        return "contradicted", bad.story
    return "evidenced", "; ".join(f"`{o.scenario}` stops at {o.stop_reason}, inside its bounds" for o in runs)


def fingerprint_then_intervene(by: dict[str, list[Outcome]]) -> tuple[str, str] | None:
    stubborn, cooperative = _runs(by, "repeat-exact"), _runs(by, "repeat-noisy", "repeat-exact-cooperative")
    if not stubborn and not cooperative:
        return None
    for o in stubborn:
        late = o.first_repeat is not None and o.model_calls > o.first_repeat + 2
        if not o.passed or late:
            why = f"{o.model_calls} model calls, the first repeat at request {o.first_repeat}" if late else o.story
            return "contradicted", f"`{o.scenario}`: {why}"
    bad = _first_bad(cooperative, lambda o: o.passed)
    if bad:
        return "contradicted", bad.story
    shown = [f"`{o.scenario}`: stopped {o.model_calls - (o.first_repeat or 0)} call(s) after the first repeat"
             for o in stubborn] + [f"`{o.scenario}` completes" for o in cooperative]
    return "evidenced", "; ".join(shown)


def errors_stay_inside(by: dict[str, list[Outcome]]) -> tuple[str, str] | None:
    runs = [o for group in by.values() for o in group]
    escaped = _first_bad(runs, lambda o: not o.escaped)
    if escaped:
        return "contradicted", f"an exception left the loop: {escaped.story}"
    leaked = _first_bad(runs, lambda o: not any(STACK_TRACE.search(t) or SECRET.search(t) for t in o.read))
    if leaked:
        return "contradicted", f"scenario `{leaked.scenario}`: a stack trace or a secret reached the model"
    named = _runs(by, "exception-secret", "flaky-timeout", "bad-date-format")
    if not named:
        return None
    bad = _first_bad(named, lambda o: o.passed)
    if bad:
        return "contradicted", bad.story
    return "evidenced", ("no stack trace reaches the model; the timeout is retried in code and the bad argument "
                         f"is not ({', '.join(o.scenario for o in named)} meet their expectations)")


def degraded_result(by: dict[str, list[Outcome]]) -> tuple[str, str] | None:
    stopped = [o for group in by.values() for o in group if o.stop_reason and not o.completed]
    if not stopped:
        return None
    for o in stopped:
        if o.invented:  # checked against the books: a fact no tool returned is not a fact
            return "contradicted", (f"`{o.scenario}`: the degraded result states {', '.join(o.invented[:3])}, which "
                                    "no tool returned")
        parts = o.degraded if isinstance(o.degraded, dict) else {}
        if all(key in parts for key in ("obtained", "unfinished", "next_steps")) and parts["next_steps"]:
            continue
        if o.answer and MAX_STEPS_TEXT.search(o.answer):
            return "contradicted", f"`{o.scenario}`: the user gets {o.answer[:80]!r}"
        return "contradicted", f"`{o.scenario}` stopped ({o.stop_reason}) without a degraded result"
    return "evidenced", f"all {len(stopped)} stopped runs return what was obtained, what is unfinished and what next"


JUDGES: dict[str, Judge] = {"loop_skeleton": loop_skeleton, "history_pairing": history_pairing,
                            "three_kinds_of_exit": three_kinds_of_exit, "budgets_beside_steps": budgets_beside_steps,
                            "fingerprint_then_intervene": fingerprint_then_intervene,
                            "errors_stay_inside": errors_stay_inside, "degraded_result": degraded_result}


def verdicts(bank: Bank, outcomes: list[Outcome], lang: str = "en") -> list[Verdict]:
    by: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by.setdefault(o.scenario, []).append(o)
    return [_verdict(item, JUDGES.get(item.id), by, lang) for item in bank.rubric]


def _verdict(item: RubricItem, judge: Judge | None, by: dict[str, list[Outcome]], lang: str) -> Verdict:
    shown = judge(by) if judge is not None and item.evidence == "behaviour" else None
    if shown is None:
        why = "a run cannot show it" if item.evidence == "ask" else "this scenario set does not show it"
        return Verdict(item.id, item.title[lang], "ask", why, item.ask[lang], 0, item.bonus)
    status, evidence = shown
    points = POINTS.get(item.id, 0) if status == "evidenced" else 0
    return Verdict(item.id, item.title[lang], status, evidence, item.ask[lang], points, item.bonus)


def red_flags(bank: Bank, outcomes: list[Outcome], lang: str = "en") -> list[Flag]:
    texts = {f.id: f[lang] for f in bank.red_flags}
    found: dict[str, str] = {}
    for o in outcomes:
        if o.error == "RunawayLoop":
            found.setdefault("while_true_no_exit", o.story)
        if o.http_errors and re.search(r"tool|call", o.http_errors[0]):
            found.setdefault("drops_assistant_turn", f"scenario `{o.scenario}`: HTTP 400: {o.http_errors[0]}")
        if o.escaped:
            found.setdefault("exception_escapes", o.story)
        if any(STACK_TRACE.search(t) for t in o.read):
            found.setdefault("raw_stack_trace", f"scenario `{o.scenario}`: the model was sent a stack trace")
        if o.answer and not o.completed and o.degraded is None and MAX_STEPS_TEXT.search(o.answer):
            found.setdefault("max_steps_to_user", f"scenario `{o.scenario}`: the answer is {o.answer[:80]!r}")
    return [Flag(fid, texts.get(fid, fid), evidence) for fid, evidence in found.items()]


def total(items: list[Verdict], flags: list[Flag]) -> int:
    return max(0, sum(v.points for v in items) - RED_FLAG_COST * len(flags))
