"""How often shadow mode agrees with blind labels: the field cases (tests/field/, labelled by a tester who read
neither the kit's code nor its docs, every expectation fixed before any guard ran) judged by
`loopkit diagnose`, per label.

    python benchmarks/field_agreement.py [cases folder]      (default: tests/field/cases)

A `legitimate` case agrees when no call is flagged. A `loop` case agrees when the first flag falls in its
window [not_before, by] (message indexes into `messages`); before it is early (a false flag on the calls
that were still fine), after it late, never a miss. Prints the tally per label and one line per
disagreement. Not a test: the figures move as the guard's principles do.
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


def verdict(case: dict, first_flag: int | None) -> str:
    if case["kind"] == "legitimate":
        return "agrees" if first_flag is None else "flagged"
    window = case["expect"]
    if first_flag is None:
        return "missed"
    if first_flag < window["not_before"]:
        return "early"
    return "agrees" if first_flag <= window["by"] else "late"


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "field" / "cases"
    tally: dict[str, Counter] = {}
    lines = []
    for path in sorted(folder.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        (conversation,) = list(read_log(path))
        judged = judge(conversation)
        said = verdict(case, judged.first_flag)
        tally.setdefault(case["kind"], Counter())[said] += 1
        if said != "agrees":
            flagged = [f"{c['message']} {c['tool']} {c['verdict']} ({c['rule']})" for c in judged.calls
                       if c["verdict"] != "run"][:2]
            lines.append(f"  {path.stem}: {case['kind']} {said}; expected {case['expect']}; flagged {flagged}")
    for kind, counts in sorted(tally.items()):
        total = sum(counts.values())
        print(f"{kind}: {counts['agrees']} of {total} agree ({counts['agrees'] / total:.0%}); "
              + ", ".join(f"{k} {v}" for k, v in counts.items() if k != "agrees"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
