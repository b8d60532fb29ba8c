"""How often shadow mode agrees with blind labels on real public trajectories, per label.

    python benchmarks/label_agreement.py LABELS.jsonl TRAJECTORY_DIR [--without FILE ...]

LABELS.jsonl holds one labelled repeated call a line: `file` (a name in TRAJECTORY_DIR), `conversation`,
`message`, `call_id`, `tool`, `arguments` and `label` (loop | redundant | legitimate), from a labeller who
never saw the guard. Each file is read by diagnose's reader and judged by its pure function (`judge`, the
same as `loopkit diagnose`); the labelled call is then found among the verdicts.

Indexing: `conversation` is the position of the conversation in the file as diagnose numbers it (a list's
index, or the index in the list of conversations an object holds) and `message` the 0-based index of the
entry that holds the call in the conversation's own message list, every entry counted whatever its role;
the labeller used the same rule. A label whose message holds no call to that tool with those arguments in
diagnose's reading is a mismatch: it is listed, never corrected, and left out of the tallies. A label whose
`repeats_message` (the earlier identical call) is not among the verdict's `evidence` is listed too.

Agreement: `loop` agrees when the call is flagged (intervene or stop); "flagged by then" also counts a
loop whose conversation was flagged at or before that call (the guard had already spoken). `legitimate`
agrees when the call runs. `redundant` may be either: the split is reported. `--without FILE` drops a
file's labels (a second table is printed for it). Not a test: the figures move as the guard does.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reference.diagnosis.logs import read_log  # noqa: E402  (after the path: run from a clone)
from reference.diagnosis.shadow import judge  # noqa: E402


def _parsed(arguments: Any) -> Any:
    """Arguments as an object where the text can be read as one (JSON, or a Python literal as some logs write)."""
    if not isinstance(arguments, str):
        return arguments
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(arguments)
        except (ValueError, SyntaxError):
            continue
    return arguments


def _find(calls: list[dict[str, Any]], label: dict[str, Any]) -> Optional[dict[str, Any]]:
    here = [c for c in calls if c["message"] == label["message"] and c["tool"] == label["tool"]]
    same = [c for c in here if _parsed(c["arguments"]) == label["arguments"]]
    return same[0] if same else (here[0] if len(here) == 1 else None)


def judged_calls(labels: list[dict[str, Any]], folder: Path) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """(file, conversation) -> its verdicts, for the conversations that carry a label."""
    wanted = defaultdict(set)
    for label in labels:
        wanted[label["file"]].add(label["conversation"])
    out = {}
    for name, indexes in sorted(wanted.items()):
        for conversation in read_log(folder / name, lambda line: None):
            if conversation.index in indexes:
                out[(name, conversation.index)] = judge(conversation).calls
    return out


def tally(labels: list[dict[str, Any]], verdicts: dict, mismatches: list[str]) -> dict[str, Counter]:
    counts: dict[str, Counter] = defaultdict(Counter)
    for label in labels:
        calls = verdicts.get((label["file"], label["conversation"]), [])
        found = _find(calls, label)
        if found is None:
            mismatches.append(f"{label['file']} conversation {label['conversation']} message {label['message']}: "
                              f"no call to {label['tool']} with those arguments there in diagnose's reading")
            continue
        if "repeats_message" in label and label["repeats_message"] not in found["evidence"]:
            mismatches.append(f"{label['file']} conversation {label['conversation']} message {label['message']}: "
                              f"the earlier call at {label['repeats_message']} is not among diagnose's evidence "
                              f"{found['evidence']}")
        before = any(c["verdict"] != "run" for c in calls if c["message"] <= label["message"])
        counts[label["label"]][found["verdict"]] += 1
        counts[label["label"]]["flagged by then"] += before
        if found["verdict"] != "run":
            counts[label["label"]][f"rule {found['rule']}"] += 1
    return counts


def report(title: str, counts: dict[str, Counter]) -> None:
    print(f"\n{title}")
    for label in ("loop", "redundant", "legitimate"):
        c = counts.get(label, Counter())
        n = c["run"] + c["intervene"] + c["stop"]
        if not n:
            continue
        flagged = c["intervene"] + c["stop"]
        rules = ", ".join(f"{k[5:]} {v}" for k, v in sorted(c.items()) if k.startswith("rule "))
        agree = {"loop": f"flagged at the call {flagged}/{n} ({flagged / n:.0%}), flagged by then "
                         f"{c['flagged by then']}/{n} ({c['flagged by then'] / n:.0%})",
                 "legitimate": f"run {c['run']}/{n} ({c['run'] / n:.0%})",
                 "redundant": f"run {c['run']}/{n}, flagged {flagged}/{n} ({flagged / n:.0%})"}[label]
        print(f"  {label:10} {n:3} labels: {agree}; intervene {c['intervene']}, stop {c['stop']}"
              + (f"; rules: {rules}" if rules else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("labels")
    parser.add_argument("trajectories")
    parser.add_argument("--without", nargs="*", default=[], help="files whose labels are also left out")
    parser.add_argument("--list", action="store_true", help="print every disagreement")
    args = parser.parse_args()
    labels = [json.loads(line) for line in open(args.labels, encoding="utf-8") if line.strip()]
    verdicts = judged_calls(labels, Path(args.trajectories))
    mismatches: list[str] = []
    report(f"all {len(labels)} labels", tally(labels, verdicts, mismatches))
    if args.without:
        kept = [x for x in labels if x["file"] not in args.without]
        report(f"without {', '.join(args.without)}: {len(kept)} labels", tally(kept, verdicts, []))
    print(f"\nindex mismatches (no such call at the label's message, or its `repeats_message` not among the "
          f"earlier identical calls diagnose lists as evidence): {len(mismatches)}")
    for line in mismatches:
        print("  " + line)
    if args.list:
        print("\ndisagreements (loop run / legitimate flagged):")
        for label in labels:
            calls = verdicts.get((label["file"], label["conversation"]), [])
            found = _find(calls, label)
            if found and ((label["label"] == "loop") == (found["verdict"] == "run")) and label["label"] != "redundant":
                print(f"  {label['label']:10} {found['verdict']:9} {found['rule'] or '':15} {label['file']}#"
                      f"{label['conversation']} m{label['message']} {label['tool']} {json.dumps(label['arguments'])[:60]}")


if __name__ == "__main__":
    main()
