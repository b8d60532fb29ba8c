"""Every flow over the corpus: which tools each kind of flow may use, read from the definitions' facts.

    python benchmarks/tool_corpus_generate.py [--corpus PATH]     # flows per kind and tools per source
    python benchmarks/tool_corpus_generate.py --write /tmp/flows   # each flow as a scenario file for `loopkit run`

| kind | legit | tools it needs (from the definition's facts) |
|---|---|---|
| read_write_read | yes | a call that may change state and a read of the same source sharing a required parameter |
| start_then_poll | yes | a non-destructive call that may change state, and such a read, polled while its status moves |
| paging | yes | a read with a page number, offset or cursor parameter |
| conflict_retry | yes | a call that may change state with a version or free-text field, and its read: a 409/412, a re-read, a write based on the new version |
| batch_lookup | yes | a read with a required numeric or UUID id |
| long_task | yes | a write and a read sharing a required numeric or UUID id: 9 entities x read, write, verify (28 steps) |
| same_call | no | any read |
| echoed_empty | no | a read with a free-text query parameter |
| guessing | no | a read with a required numeric or UUID id |
| stuck_offset | no | a read with a page number or offset |
| spellings | no | a read with a path, a date or timestamp, or a plain numeric parameter |
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from itertools import zip_longest
from pathlib import Path
from typing import Callable, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tool_corpus_facts as F  # noqa: E402
import tool_corpus_flows as L  # noqa: E402
import tool_corpus_stuck as S  # noqa: E402


def spread(tools: Iterable[F.ToolDef], limit: int) -> list[F.ToolDef]:
    """At most `limit` tools, taken in turn from each source (so one big server does not fill a kind alone)."""
    by_source: dict[str, list[F.ToolDef]] = {}
    for t in sorted(tools, key=lambda t: (t.repository, t.source.get("path", ""), t.name)):
        by_source.setdefault(t.repository, []).append(t)
    mixed = [t for group in zip_longest(*by_source.values()) for t in group if t is not None]
    return mixed[:limit]


def pairs(tools: list[F.ToolDef], need_id: bool = False, non_destructive: bool = False) -> list[tuple[F.ToolDef, F.ToolDef]]:
    """(write, its read) pairs; with need_id the two share a required numeric or UUID id."""
    out = []
    for w in F.writes(tools):
        if non_destructive and F.destructive(w):
            continue
        candidates = [r for r in F.reads(tools) if r.server == w.server and F.shared_required(w, r)]
        if need_id:
            candidates = [r for r in candidates if F.entity_ids(r) and F.entity_ids(r)[0] in F.entity_ids(w)]
        best = sorted(candidates, key=lambda r: (-len(F.shared_required(w, r)), r.name))
        if best:
            out.append((w, best[0]))
    return out


def spread_pairs(ps: list[tuple[F.ToolDef, F.ToolDef]], limit: int) -> list[tuple[F.ToolDef, F.ToolDef]]:
    chosen = {id(w) for w in spread([w for w, _ in ps], limit)}
    return [(w, r) for w, r in ps if id(w) in chosen]


def generate(tools: list[F.ToolDef], per_kind: int = L.PER_KIND) -> list[L.Flow]:
    """The flows of every kind, at most `per_kind` of each (0: every tool or pair that fits)."""
    per_kind = per_kind or len(tools) ** 2
    reads = F.reads(tools)
    single: list[tuple[Callable[[F.ToolDef], L.Flow], Callable[[F.ToolDef], bool]]] = [
        (L.paging, lambda r: bool(F.page_numbers(r) or F.cursors(r))),
        (L.batch_lookup, lambda r: bool(F.entity_ids(r))),
        (S.same_call, lambda r: True),
        (S.echoed_empty, lambda r: bool(F.queries(r))),
        (S.guessing, lambda r: bool(F.entity_ids(r))),
        (S.stuck_offset, lambda r: bool(F.page_numbers(r))),
        (S.spellings, lambda r: bool(F.paths(r) or F.dates(r) or F.plain_numbers(r))),
    ]
    flows: list[L.Flow] = []
    for w, r in spread_pairs(pairs(tools), per_kind):
        flows.append(L.read_write_read(w, r))
    for w, r in spread_pairs(pairs(tools, non_destructive=True), per_kind):
        flows.append(L.start_then_poll(w, r))
    editable = [(w, r) for w, r in pairs(tools) if L.conflict_edit(w, r)]
    for w, r in spread_pairs(editable, per_kind):
        flows.append(L.conflict_retry(w, r))
    for w, r in spread_pairs(pairs(tools, need_id=True), per_kind):
        flows.append(L.long_task(w, r))
    for build, fits in single:
        flows += [build(r) for r in spread([r for r in reads if fits(r)], per_kind)]
    seen: Counter[str] = Counter()
    return [named(f, seen) for f in flows]


def named(flow: L.Flow, seen: Counter[str]) -> L.Flow:
    """A unique scenario name the loader accepts: lower-case letters, digits and hyphens."""
    name = "".join(c if c.isalnum() else "-" for c in flow.name.lower()).strip("-")[:80]
    seen[name] += 1
    name = name if seen[name] == 1 else f"{name}-{seen[name]}"
    scenario = {**flow.scenario, "name": name}
    if not flow.legit:  # the bound the evaluation judges, written where `loopkit run` judges it too
        scenario["expect"] = {**scenario["expect"], "model_calls": {"max": (flow.onset or 0) + L.STOP_WITHIN}}
    return L.Flow(name, flow.kind, flow.legit, scenario, flow.onset)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(F.CORPUS))
    ap.add_argument("--per-kind", type=int, default=L.PER_KIND, help="flows per kind at most (0: all)")
    ap.add_argument("--write", help="a directory: write each flow there as <name>.yaml")
    args = ap.parse_args(argv)
    tools = F.load_corpus(args.corpus)
    flows = generate(tools, args.per_kind)
    if args.write:
        import yaml  # the kit's own dependency; only needed to write files
        Path(args.write).mkdir(parents=True, exist_ok=True)
        for f in flows:
            text = yaml.safe_dump(f.scenario, sort_keys=False, allow_unicode=True, width=120)
            Path(args.write, f"{f.name}.yaml").write_text(f"# {f.kind}: {'legitimate' if f.legit else 'stuck'}\n"
                                                          + text, encoding="utf-8")
    print(f"{len(tools)} definitions: {dict(Counter(t.repository for t in tools))}")
    print(f"{len(flows)} flows: {dict(Counter(f.kind for f in flows))}")


if __name__ == "__main__":
    main()
