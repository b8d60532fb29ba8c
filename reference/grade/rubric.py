"""The rubric items and the red flags, judged from the runs, on the bank's one scale.

Each item of the bank's rubric (reference/interview/questions.yaml) is judged on the runs that can show
it, and scores its weight times the share of those runs that show it: `evidenced` (all of them),
`partly`, `contradicted` (none), or `ask` (no run can show it: the bank's follow-up is what to ask).
A failure is blamed on the behaviour that caused it: a guard that stops legitimate work costs the guard
item and raises its red flag, not the skeleton; a loop with no step cap of its own gets no skeleton credit
at all. The weights, the pass line, the top and the cost of a red flag are the bank's (`scale`), so the
card and the grader read the same figures.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..interview.bank import Bank, RubricItem
from .content import degraded_share
from .suite import COOPERATIVE, Outcome, stop_kind

STACK_TRACE = re.compile(r"Traceback \(most recent call last\)|\bFile \"[^\"]+\", line \d+")
SECRET = re.compile(r"FAKE-PASSWORD|sk-FAKE|postgresql://")
MAX_STEPS_TEXT = re.compile(r"max(imum)?[ _-]?(number of )?steps|step limit", re.IGNORECASE)
GUARD_KINDS = ("guard", "no_progress")  # stops a guard decides: on legitimate work, the guard's fault
REPEATS = ("repeat-exact", "repeat-noisy", "repeat-exact-cooperative")


@dataclass
class Verdict:
    id: str
    title: str
    status: str  # evidenced | partly | contradicted | ask
    evidence: str  # what the runs showed, or why the item must be asked
    ask: str  # the bank's follow-up
    points: int
    bonus: bool = False
    share: float = 0.0  # of the runs that can show the item, how many do


@dataclass
class Flag:
    id: str
    text: str  # the bank's wording
    evidence: str


Shown = "tuple[float, str] | None"  # (share, evidence); None: no run shows it
Judge = Callable[[dict[str, list[Outcome]]], Shown]


# A run not made (the loop hit the time limit too often) shows nothing in the loop's favour: it stays in every
# share as a run that failed, so that hanging on the scenarios it would fail cannot raise a score.
def _runs(by: dict[str, list[Outcome]], *names: str) -> list[Outcome]:
    return [o for name in names for o in by.get(name, [])]


def _all(by: dict[str, list[Outcome]]) -> list[Outcome]:
    return [o for group in by.values() for o in group]


def _share(runs: list[Outcome], ok: Callable[[Outcome], bool], shown: str) -> Shown:
    """The share of `runs` that are `ok` (a run not made never is); the evidence names the first that is not."""
    if not runs:
        return None
    good = [o for o in runs if not o.skipped and ok(o)]
    bad = next((o for o in runs if o.skipped or not ok(o)), None)
    evidence = shown if bad is None else f"{len(good)} of {len(runs)}; `{bad.scenario}`: {bad.story}"
    return len(good) / len(runs), evidence


def uncapped(by: dict[str, list[Outcome]]) -> Outcome | None:
    """A run the grader had to cut off: the loop has no step cap of its own."""
    return next((o for o in _all(by) if o.error == "RunawayLoop"), None)


def stopped_legitimate_work(o: Outcome) -> bool:
    return o.scenario in COOPERATIVE and stop_kind(o) in GUARD_KINDS


def loop_skeleton(by: dict[str, list[Outcome]]) -> Shown:
    runaway = uncapped(by)
    if runaway is not None:
        return 0.0, f"no step cap of its own: {runaway.story}"
    return _share(_runs(by, *COOPERATIVE), lambda o: o.completed or stopped_legitimate_work(o),
                  f"the legitimate scenarios complete ({', '.join(c for c in COOPERATIVE if c in by)})")


def history_pairing(by: dict[str, list[Outcome]]) -> Shown:
    runs = [o for o in _all(by) if o.model_calls or o.http_errors or o.skipped]
    wires = sorted({o.wire for o in runs})
    where = "all three wires" if len(wires) == 3 else f"its wire ({', '.join(wires)}: an SDK loop speaks one)"
    return _share(runs, lambda o: not o.http_errors, f"protocol-valid on {where}: no HTTP 400 in {len(runs)} runs")


def three_kinds_of_exit(by: dict[str, list[Outcome]]) -> Shown:
    runs = [o for o in _all(by) if not o.completed and o.stop_reason]
    if not runs:
        return None
    kinds = {stop_kind(o) for o in runs} - {None, "normal"}
    reasons = sorted({o.stop_reason for o in runs if o.stop_reason})
    share = (("resource" in kinds) + bool(kinds - {"resource"})) / 2  # a limit, and an abnormal stop
    return share, f"the failure scenarios end with: {', '.join(reasons)}"


RESOURCE_STOPS = ("token_budget", "cost_budget", "time_budget")


def budgets_beside_steps(by: dict[str, list[Outcome]]) -> Shown:
    """A budget, not the step cap, stops the growing-context scenarios, inside their token and cost bounds."""
    return _share(_runs(by, "token-blowup", "cost-blowup"),
                  lambda o: o.stop_reason in RESOURCE_STOPS and o.checks.get("tokens", True)
                  and o.checks.get("cost_usd", True),
                  "the growing-context scenarios stop on a budget, inside their token and cost bounds")


def _caught_in_time(o: Outcome) -> bool:
    """A stubborn repeat stopped by a guard within two requests of its first repeat; a cooperative or a
    disguised one answered after the intervention."""
    if o.scenario == "repeat-exact":
        return stop_kind(o) in GUARD_KINDS and (o.first_repeat is None or o.model_calls <= o.first_repeat + 2)
    return o.completed


def fingerprint_then_intervene(by: dict[str, list[Outcome]]) -> Shown:
    """Earned by catching repeats; every legitimate run the guard stops takes its share off."""
    repeats, legitimate = _runs(by, *REPEATS), _runs(by, *COOPERATIVE)
    if not repeats:
        return None
    caught = [o for o in repeats if _caught_in_time(o)]
    false_stops = [o for o in legitimate if stopped_legitimate_work(o)]
    share = len(caught) / len(repeats) * (1 - len(false_stops) / len(legitimate) if legitimate else 1)
    missed = next((o for o in repeats if not _caught_in_time(o)), None)
    evidence = (f"{len(caught)} of {len(repeats)} repeats caught in time"
                + (f" (`{missed.scenario}`: {missed.story})" if missed else ", the cooperative model finishing")
                + (f"; {len(false_stops)} of {len(legitimate)} legitimate runs stopped by the guard "
                   f"(`{false_stops[0].scenario}`: {false_stops[0].stop_reason})" if false_stops else ""))
    return share, evidence


ERROR_SCENARIOS = ("exception-secret", "flaky-timeout", "bad-date-format")


def errors_stay_inside(by: dict[str, list[Outcome]]) -> Shown:
    """Half for keeping every failure inside (the run ends, no exception out, no trace or secret in); half for
    handling them as the error scenarios ask (the timeout retried in code, the bad argument not)."""
    runs, named = _all(by), _runs(by, *ERROR_SCENARIOS)
    if not named:
        return None
    inside = [o for o in runs if o.error is None and not o.escaped and not o.skipped  # a crash shows nothing
              and not any(STACK_TRACE.search(t) or SECRET.search(t) for t in o.read)]
    handled = [o for o in named if o.passed and not o.escaped]
    share = (len(inside) / len(runs) + len(handled) / len(named)) / 2
    first = next((o for o in runs if o not in inside), None) or next((o for o in named if o not in handled), None)
    evidence = (f"{len(inside)} of {len(runs)} runs keep failures inside; {len(handled)} of {len(named)} error "
                "scenarios handled as they ask" + (f" (`{first.scenario}`: {first.story})" if first else ""))
    return share, evidence


def degraded_result(by: dict[str, list[Outcome]]) -> Shown:
    stopped = [o for o in _all(by) if o.stop_reason and not o.completed]
    if not stopped:
        return None
    shares = [0.0 if o.invented else degraded_share(o) for o in stopped]  # an invented fact is no fact
    worst = min(range(len(stopped)), key=lambda i: shares[i])
    bad = stopped[worst]
    evidence = (f"{len(stopped)} stopped runs tell the user what was found, with facts from the tools' own results"
                if shares[worst] == 1 else f"`{bad.scenario}`: the degraded result states "
                f"{', '.join(bad.invented[:3])}, which no tool returned" if bad.invented else
                f"`{bad.scenario}` stopped ({bad.stop_reason}): the user gets {(bad.answer or '')[:80]!r}")
    return sum(shares) / len(shares), evidence


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
    share, evidence = shown
    status = "evidenced" if share >= 1 else "contradicted" if share <= 0 else "partly"
    return Verdict(item.id, item.title[lang], status, evidence, item.ask[lang], round(item.points * share),
                   item.bonus, share)


def red_flags(bank: Bank, outcomes: list[Outcome], lang: str = "en") -> list[Flag]:
    texts = {f.id: f[lang] for f in bank.red_flags}
    found: dict[str, str] = {}
    stopped = [o for o in outcomes if o.stop_reason and not o.completed and not o.skipped]
    for o in outcomes:
        if o.error == "RunawayLoop":
            found.setdefault("while_true_no_exit", o.story)
        if o.http_errors and re.search(r"tool|call", o.http_errors[0]):
            found.setdefault("drops_assistant_turn", f"scenario `{o.scenario}`: HTTP 400: {o.http_errors[0]}")
        if o.escaped:
            found.setdefault("exception_escapes", o.story)
        if o.error == "ClaimRejected":  # the books contradict the stop the loop reported: a false report
            found.setdefault("reports_an_end_it_did_not_reach", o.story)
        if any(STACK_TRACE.search(t) for t in o.read):
            found.setdefault("raw_stack_trace", f"scenario `{o.scenario}`: the model was sent a stack trace")
        if stopped_legitimate_work(o):
            found.setdefault("stops_legitimate_work", f"scenario `{o.scenario}` is legitimate work; the loop "
                             f"stopped it ({o.stop_reason})")
    for o in stopped:
        if o.answer and degraded_share(o) == 0 and MAX_STEPS_TEXT.search(o.answer):
            found.setdefault("max_steps_to_user", f"scenario `{o.scenario}`: the answer is {o.answer[:80]!r}")
        if not (o.answer or "").strip() and not o.degraded:
            found.setdefault("empty_answer_at_limit", f"scenario `{o.scenario}` stopped ({o.stop_reason}) "
                             "and the user got no answer")
        if o.answered_then_continued:
            found.setdefault("only_exit_is_step_cap", f"scenario `{o.scenario}`: the model answered and the loop "
                             "asked it again")
    return [Flag(fid, texts.get(fid, fid), evidence) for fid, evidence in found.items()]


def total(bank: Bank, items: list[Verdict], flags: list[Flag]) -> int:
    return max(0, sum(v.points for v in items) - bank.scale.red_flag_cost * len(flags))
