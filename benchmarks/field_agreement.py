"""How often shadow mode agrees with blind labels: the field cases (tests/field/, labelled by a tester who read
neither the kit's code nor its docs, every expectation fixed before any guard ran) judged by
`loopkit diagnose`, per label.

    python benchmarks/field_agreement.py [cases folder]      (default: tests/field/cases)

A `legitimate` case agrees when no call is flagged (warned or stopped). A `loop` case agrees when the first
flag falls in its window [not_before, by] (message indexes into `messages`); before it is early, after it
late, never a miss. The tester counts a warning as a flag; the guard warns once before it stops, so the
loop cases are also tallied apart: where the first stop falls, and where the first warning falls. Prints
the tallies and one line per disagreement. Not a test: the figures move as the guard's principles do.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reference.diagnosis.logs import read_log  # noqa: E402  (after the path: run from a clone)
from reference.diagnosis.shadow import judge  # noqa: E402


def when(first: int | None, window: dict) -> str:
    """Where a loop case's first warning or first stop falls against the tester's window [not_before, by]."""
    if first is None:
        return "never"
    if first < window["not_before"]:
        return "early"
    return "in window" if first <= window["by"] else "late"


def verdict(case: dict, first_flag: int | None) -> str:
    """The tester's own reading: any intervention (a warning or a stop) is a flag."""
    if case["kind"] == "legitimate":
        return "agrees" if first_flag is None else "flagged"
    said = when(first_flag, case["expect"])
    return {"in window": "agrees", "never": "missed"}.get(said, said)


def first(judged, kind: str) -> int | None:
    return next((c["message"] for c in judged.calls if c["verdict"] == kind), None)


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "field" / "cases"
    tally: dict[str, Counter] = {}
    warned: Counter = Counter()  # loop cases: where the first warning fell
    stopped: Counter = Counter()  # loop cases: where the first stop fell
    lines = []
    for path in sorted(folder.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        (conversation,) = list(read_log(path))
        judged = judge(conversation)
        said = verdict(case, judged.first_flag)
        tally.setdefault(case["kind"], Counter())[said] += 1
        if case["kind"] == "loop":
            warned[when(first(judged, "intervene"), case["expect"])] += 1
            stopped[when(first(judged, "stop"), case["expect"])] += 1
        if said != "agrees":
            flagged = [f"{c['message']} {c['tool']} {c['verdict']} ({c['rule']})" for c in judged.calls
                       if c["verdict"] != "run"][:2]
            lines.append(f"  {path.stem}: {case['kind']} {said}; expected {case['expect']}; flagged {flagged}")
    print("First intervention of any kind (the tester's reading: a warning is a flag):")
    for kind, counts in sorted(tally.items()):
        total = sum(counts.values())
        print(f"{kind}: {counts['agrees']} of {total} agree ({counts['agrees'] / total:.0%}); "
              + ", ".join(f"{k} {v}" for k, v in counts.items() if k != "agrees"))
    loops = sum(stopped.values())
    if loops:
        print(f"Loop cases, warnings and stops apart ({loops}):\n"
              f"  first stop: {', '.join(f'{k} {v}' for k, v in sorted(stopped.items()))}\n"
              f"  first warning: {', '.join(f'{k} {v}' for k, v in sorted(warned.items()))}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
