"""What the guard's numbers rest on: each bare number a rule uses, swept one at a time over a sensible range.

    python benchmarks/guard_numbers.py [--only NAME,...]     (from a clone, ~10 s per value)

Per value, summed over every field set (tests/field/cases*, judged as benchmarks/field_agreement.py judges
them: shadow mode over each recorded conversation): legitimate conversations flagged (a warning or a stop) and
loops whose first stop falls in the tester's window; on the tool corpus (benchmarks/tool_corpus_eval.py, the
guarded loop): legitimate flows met and stuck flows caught; on the kit's catalogue: scenarios whose expect
block the guarded loop meets. Every other number keeps its value. The field sets and the catalogue were seen
while the guard was tuned: a value is changed only where it is better on legitimate work with no loop lost,
and a tie keeps the value it has. Prints one Markdown table.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import field_agreement as FA  # noqa: E402  (after the path: run from a clone)
import tool_corpus_eval as TE  # noqa: E402
import tool_corpus_facts as TF  # noqa: E402
from tool_corpus_generate import generate  # noqa: E402

from reference import catalogue  # noqa: E402
from reference.diagnosis.logs import read_log  # noqa: E402
from reference.diagnosis.shadow import judge  # noqa: E402
from reference.parts.guards import arguments, asking, counts, counts_table, own, repeats, resent, responses, thresholds, waits  # noqa: E402
from reference.runs.runner import evaluate, run  # noqa: E402

SETS = sorted(p.name for p in (ROOT / "tests" / "field").glob("cases*") if p.is_dir())


def field() -> tuple[int, int]:
    """(legitimate conversations flagged, loops first stopped in window), over every field set."""
    flagged = in_window = 0
    for name in SETS:
        for path in sorted((ROOT / "tests" / "field" / name).glob("*.json")):
            case = json.loads(path.read_text(encoding="utf-8"))
            (conversation,) = list(read_log(path))
            judged = judge(conversation)
            if case["kind"] == "legitimate":
                flagged += judged.first_flag is not None
            else:
                in_window += FA.when(FA.first(judged, "stop"), case["expect"]) == "in window"
    return flagged, in_window


def corpus(flows: list[Any], kit: Any) -> tuple[int, int]:
    """(legitimate flows met, stuck flows caught) on the tool corpus, the guarded loop."""
    outcomes = TE.evaluate(flows, ["guarded"], kit)
    return sum(o.good for o in outcomes if o.legit), sum(o.good for o in outcomes if not o.legit)


def kit_catalogue(scenarios: list[Any]) -> int:
    return sum(all(c.ok for c in evaluate(s, run(s, "guarded"))) for s in scenarios)


def threshold(field_name: str, intents: tuple[str, ...] = ("general", "lookup", "troubleshoot")) -> Callable:
    """A setter for one field of the per-intent thresholds (every intent named)."""
    def set_to(value: Any) -> Callable[[], None]:
        kept = dict(thresholds.THRESHOLDS)
        for intent in intents:
            thresholds.THRESHOLDS[intent] = replace(kept[intent], **{field_name: value})
        return lambda: thresholds.THRESHOLDS.update(kept)
    return set_to


def global_in(module: Any, name: str) -> Callable:
    def set_to(value: Any) -> Callable[[], None]:
        kept = getattr(module, name)
        setattr(module, name, value)
        return lambda: setattr(module, name, kept)
    return set_to


def _clear_counts() -> None:
    for cached in (counts.asked_for, counts._table, counts._cldr, counts._written_in, counts._own_words):
        cached.cache_clear()


def counts_global(name: str, tabled: bool = False) -> Callable:
    """A setter for one of counts.py's numbers; `tabled`: cldr_counts.json is built with it, so the table is
    rebuilt from num2words and Babel (counts_table(), in memory) for the value tried."""
    def set_to(value: Any) -> Callable[[], None]:
        kept, kept_table = getattr(counts, name), counts._table
        setattr(counts, name, value)
        if tabled:
            built = counts_table.counts_table()
            counts._table = lru_cache(maxsize=1)(lambda: built)
        _clear_counts()

        def restore() -> None:
            setattr(counts, name, kept)
            counts._table = kept_table
            _clear_counts()
        return restore
    return set_to


def bare_words(value: int) -> Callable[[], None]:
    """asking.bare_state with its word limit set to `value` (the limit is written inline there: the same body)."""
    kept = asking.bare_state

    def bare_state(a: Any) -> bool:
        content = a.content
        if isinstance(content, (list, dict)) or content is None or isinstance(content, bool):
            return False
        text = asking.clean_text(str(content)).strip()
        if 0 < len(text.split()) <= asking.SENTENCE and asking.transient(text):
            return True
        return 0 < len(text.split()) <= value and not any(c.isdigit() for c in text)
    asking.bare_state = bare_state
    return lambda: setattr(asking, "bare_state", kept)


SWEEPS: dict[str, tuple[Any, Callable, list[Any]]] = {  # name: (value now, setter, values tried)
    "repeats.PATIENCE": (repeats.PATIENCE, global_in(repeats, "PATIENCE"), [0, 1, 2, 3, 4, 6]),
    "allowed_runs (general, lookup)": (1, threshold("allowed_runs", ("general", "lookup")), [1, 2, 3]),
    "allowed_runs (troubleshoot)": (2, threshold("allowed_runs", ("troubleshoot",)), [1, 2, 3]),
    "alternation_length": (4, threshold("alternation_length"), [4, 6, 8]),
    "same_result_actions": (2, threshold("same_result_actions"), [2, 3, 4]),
    "same_answer_calls": (3, threshold("same_answer_calls"), [2, 3, 4, 5]),
    "no_progress_steps (general, lookup)": (2, threshold("no_progress_steps", ("general", "lookup")), [1, 2, 3, 4]),
    "no_progress_steps (troubleshoot)": (3, threshold("no_progress_steps", ("troubleshoot",)), [2, 3, 4]),
    "poll_waits": (2, threshold("poll_waits"), [1, 2, 3, 4, 6]),
    "interventions": (1, threshold("interventions"), [1, 2, 3]),
    "echo_similarity": (0.9, threshold("echo_similarity"), [0.7, 0.8, 0.85, 0.9, 0.95, 1.01]),
    "asking.SENTENCE": (asking.SENTENCE, global_in(asking, "SENTENCE"), [6, 8, 12, 16, 24]),
    "bare state: words at most": (3, bare_words, [1, 2, 3, 4, 6]),
    "waits.TRANSIENT_ATTEMPTS": (waits.TRANSIENT_ATTEMPTS, global_in(waits, "TRANSIENT_ATTEMPTS"), [2, 3, 4, 5]),
    "own._DISTINCT": (own._DISTINCT, global_in(own, "_DISTINCT"), [2, 3, 4, 5]),
    "own._PASSAGE": (own._PASSAGE, global_in(own, "_PASSAGE"), [4, 6, 8, 10, 12]),
    "resent._PART": (resent._PART, global_in(resent, "_PART"), [2, 3, 4, 5]),
    "arguments._QUOTED": (arguments._QUOTED, global_in(arguments, "_QUOTED"), [1, 2, 3, 4, 6]),
    "responses._WORDS": (responses._WORDS, global_in(responses, "_WORDS"), [1, 2, 3]),
    "counts.MOST": (counts.MOST, counts_global("MOST", tabled=True), [10, 20, 50, 100, 200]),
    "counts._UNIT_WORDS": (counts._UNIT_WORDS, counts_global("_UNIT_WORDS"), [1, 2, 3, 4, 6, 8]),
    "counts._BETWEEN": (counts._BETWEEN, counts_global("_BETWEEN"), [0, 1, 2, 4]),
    "counts.SHORT": (counts.SHORT, counts_global("SHORT", tabled=True), [1, 2, 3, 4]),
    "counts._STEM": (counts._STEM, counts_global("_STEM", tabled=True), [1, 2, 3, 4, 5]),
}


def sweep(names: list[str]) -> Iterator[str]:
    kit = TE.import_kit(ROOT)
    flows = generate(TF.load_corpus(str(TF.CORPUS)), TE.L.PER_KIND)
    scenarios = catalogue()
    legit = sum(f.legit for f in flows)
    yield (f"| number | value | field: legitimate flagged | field: loops stopped in window | "
           f"corpus: legitimate met (of {legit}) | corpus: stuck caught (of {len(flows) - legit}) | "
           f"catalogue met (of {len(scenarios)}) |")
    yield "|---|---:|---:|---:|---:|---:|---:|"
    for name in names:
        now, set_to, values = SWEEPS[name]
        for value in values:
            restore = set_to(value)
            try:
                flagged, in_window = field()
                met, caught = corpus(flows, kit)
                kept = kit_catalogue(scenarios)
            finally:
                restore()
            mark = " (now)" if value == now else ""
            yield f"| {name} | {value:g}{mark} | {flagged} | {in_window} | {met} | {caught} | {kept} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated names from the table (default: all)")
    args = ap.parse_args()
    names = [n for n in SWEEPS if not args.only or any(part in n for part in args.only.split(","))]
    for line in sweep(names):
        print(line, flush=True)


if __name__ == "__main__":
    main()
