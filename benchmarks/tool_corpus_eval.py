"""Judge a loop guard on flows over real tool definitions: false interventions and missed loops, per flow kind.

    python benchmarks/tool_corpus_eval.py                         # the kit in the current directory
    cd ../other-checkout && python /path/to/benchmarks/tool_corpus_eval.py --corpus /path/to/tools.jsonl

The kit is imported from `--kit` (default: the current directory), not from this file's checkout, so one
script judges any branch. The flows come from tool_corpus_generate.py, beside this file; their
expectations are fixed by construction: a legitimate flow must complete with no intervention, a stuck flow
must be intervened on (a `loop_detected` result, or a guard's stop) and stopped within STOP_WITHIN model
calls of its onset. Which rule acted is read from the intervention's `pattern` and the stop reason.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tool_corpus_facts as F  # noqa: E402
import tool_corpus_flows as L  # noqa: E402
from tool_corpus_generate import generate  # noqa: E402

NOT_GUARD = {"completed", "max_steps", "token_budget", "time_budget", "cost_budget", "error", "cancelled"}


@dataclass
class Outcome:
    flow: str
    kind: str
    legit: bool
    loop: str
    stop_reason: str
    model_calls: int
    interventions: list[str] = field(default_factory=list)
    completed: bool = False
    verdict: str = ""  # legit: ok | intervened | not_completed; stuck: caught | late | not_stopped | not_intervened
    detail: str = ""

    @property
    def good(self) -> bool:
        return self.verdict in ("ok", "caught")

    @property
    def rules(self) -> list[str]:
        """What acted: each intervention's pattern, then a guard's stop reason."""
        acted = list(dict.fromkeys(self.interventions))
        return acted + ([f"stop:{self.stop_reason}"] if self.stop_reason not in NOT_GUARD else [])


def import_kit(kit: Path) -> Any:
    sys.path.insert(0, str(kit.resolve()))
    import reference  # noqa: F401  (the kit of `kit`, not of this file's checkout)
    from reference.runs import registry, runner
    if not Path(reference.__file__).resolve().is_relative_to(kit.resolve()):
        raise SystemExit(f"imported the kit from {reference.__file__}, not from {kit}")
    return reference, registry, runner


def interventions(messages: list[Any]) -> list[str]:
    """The pattern of every `loop_detected` tool result the model was sent."""
    found = []
    for m in messages:
        if getattr(m, "role", None) != "tool":
            continue
        try:
            body = json.loads(m.content) if isinstance(m.content, str) else None
        except ValueError:
            continue
        if isinstance(body, dict) and body.get("error_type") == "loop_detected":
            name = str(body.get("pattern") or body.get("rule") or "unnamed")
            found.append(f"{name} [{body['principle']}]" if body.get("principle") else name)
    return found


def judge(flow: L.Flow, loop: str, kit: Any) -> Outcome:
    reference, registry, runner = kit
    sc = reference.parse_scenario(flow.scenario, source=flow.name)
    try:
        result = registry.run_loop(loop, reference.Episode.from_scenario(sc))
    except Exception as exc:  # noqa: BLE001 - a crash is an outcome of the flow, reported, not a stop of the run
        return Outcome(flow.name, flow.kind, flow.legit, loop, "crash", 0,
                       verdict="not_completed" if flow.legit else "not_intervened", detail=f"{type(exc).__name__}: {exc}")
    out = Outcome(flow.name, flow.kind, flow.legit, loop, result.stop_reason.value, result.model_calls,
                  interventions(result.messages), runner.completed(sc, result), detail=result.detail or "")
    out.verdict = verdict(out, flow.onset)
    return out


def verdict(out: Outcome, onset: int | None) -> str:
    """The flow's expectation against what happened: what acted (the guard's rules) and when the run stopped."""
    if out.legit:
        return "intervened" if out.rules else "ok" if out.completed else "not_completed"
    if not out.rules:  # nothing of the guard's acted: the run ran on until a limit stopped it, if anything did
        return "not_intervened"
    if out.stop_reason == "max_steps":
        return "not_stopped"  # warned, but let run to the step limit
    return "caught" if out.model_calls <= (onset or 0) + L.STOP_WITHIN else "late"


def evaluate(flows: list[L.Flow], loops: list[str], kit: Any) -> list[Outcome]:
    return [judge(f, loop, kit) for loop in loops for f in flows]


def table(outcomes: list[Outcome], loop: str) -> str:
    """One row per flow kind: how many flows, how many met their expectation, what went wrong."""
    rows = ["| kind | flows | as expected | false interventions | legit not completed | missed: warned, not stopped "
            "| missed: late | missed: no intervention | model calls (median) |", "|---|" + "---:|" * 8]
    by_kind: dict[tuple[bool, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        if o.loop == loop:
            by_kind[(not o.legit, o.kind)].append(o)
    for (_, kind), group in sorted(by_kind.items()):
        v = Counter(o.verdict for o in group)
        legit = group[0].legit
        cells = [v["intervened"], v["not_completed"], "", "", ""] if legit else \
            ["", "", v["not_stopped"], v["late"], v["not_intervened"]]
        median = statistics.median(o.model_calls for o in group)
        rows.append(f"| {kind} ({'legit' if legit else 'stuck'}) | {len(group)} | {sum(o.good for o in group)} | "
                    + " | ".join(str(c) for c in cells) + f" | {median:g} |")
    return "\n".join(rows)


def rules_table(outcomes: list[Outcome], loop: str) -> str:
    """Per rule that acted: on how many legitimate flows (false interventions) and stuck flows (catches)."""
    false: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    for o in outcomes:
        if o.loop != loop:
            continue
        for rule in o.rules:
            (false if o.legit else caught)[rule] += 1
    rows = ["| rule (pattern / stop reason) | legit flows it acted on | stuck flows it acted on |", "|---|---:|---:|"]
    rows += [f"| {r} | {false[r]} | {caught[r]} |" for r in sorted(set(false) | set(caught))]
    return "\n".join(rows)


def report(outcomes: list[Outcome], loops: list[str], flows: list[L.Flow]) -> str:
    parts = [f"{len(flows)} flows ({sum(f.legit for f in flows)} legitimate, "
             f"{sum(not f.legit for f in flows)} stuck)"]
    for loop in loops:
        mine = [o for o in outcomes if o.loop == loop]
        legit = [o for o in mine if o.legit]
        stuck = [o for o in mine if not o.legit]
        crashed = sum(o.stop_reason == "crash" for o in mine)
        false = sum(o.verdict == "intervened" for o in legit)
        parts.append(f"\n### {loop}\n\nlegitimate flows met: {sum(o.good for o in legit)}/{len(legit)} "
                     f"({false} false interventions); stuck flows caught: {sum(o.good for o in stuck)}/{len(stuck)} "
                     f"({len(stuck) - sum(o.good for o in stuck)} missed loops); runs that raised: {crashed}"
                     f"\n\n{table(outcomes, loop)}\n\n"
                     f"{rules_table(outcomes, loop)}")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(F.CORPUS), help="the tool definitions (JSONL)")
    ap.add_argument("--kit", default=".", help="the checkout whose `reference` package is judged")
    ap.add_argument("--loops", default="guarded,react")
    ap.add_argument("--per-kind", type=int, default=L.PER_KIND, help="flows per kind at most (0: all)")
    ap.add_argument("--kinds", default="", help="comma-separated flow kinds (default: all)")
    ap.add_argument("--json", help="write every outcome here (JSON lines)")
    args = ap.parse_args(argv)
    kit = import_kit(Path(args.kit))
    flows = generate(F.load_corpus(args.corpus), args.per_kind)
    if args.kinds:
        flows = [f for f in flows if f.kind in args.kinds.split(",")]
    loops = args.loops.split(",")
    started = time.perf_counter()
    outcomes = evaluate(flows, loops, kit)
    print(report(outcomes, loops, flows))
    print(f"\n({time.perf_counter() - started:.1f} s wall clock, kit {Path(kit[0].__file__).parent.parent})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            for o in outcomes:
                fh.write(json.dumps({**asdict(o), "rules": o.rules}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
