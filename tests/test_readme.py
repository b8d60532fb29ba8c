"""The README's figures are measured, and stay measured: recompute them and compare.

`python tests/test_readme.py --write` re-measures the demo table and writes it into README.md."""
from __future__ import annotations

from pathlib import Path

from reference import catalogue
from reference.lessons import LESSONS
from reference.runs.runner import run_catalogue

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def demo_lines() -> dict[str, str]:
    """The README's demo table rows, one per loop, measured now."""
    lines = {}
    for loop in ("react", "guarded"):
        rows = run_catalogue(catalogue(), loop)
        tokens = sum(r["input_tokens"] + r["output_tokens"] for r in rows)
        completable = {s.name for s in catalogue() if s.expect.completable}  # an answer elsewhere is no task done
        lines[loop] = (f"| `{loop}` | {sum(r['completed'] and r['scenario'] in completable for r in rows)} | "
                       f"{sum(r['meets_expect'] for r in rows)} of {len(rows)} | {sum(r['model_calls'] for r in rows)} | "
                       f"{tokens:,} | ${sum(r['cost_usd'] for r in rows):,.2f} | "
                       f"{sum(r['sim_seconds'] for r in rows):,.1f} s |")
    return lines


def test_readme_demo_table_matches_a_fresh_run():
    scenarios = catalogue()
    for line in demo_lines().values():
        assert line in README, f"README.md should carry the measured line:\n{line}"
    completable = sum(s.expect.completable for s in scenarios)
    assert f"task done (of {completable} completable)" in README and f"over the {len(scenarios)} scenarios" in README


def design_lines() -> dict[str, str]:
    """Lesson 7's before/after table: metric-trend alone, then the whole catalogue, per loop (as notebook 07
    computes it, with lesson 6's fleet metrics)."""
    from reference import Episode
    from reference.diagnosis.fleet import fleet_metrics
    from reference.harness.trace import Trace
    from reference.runs.registry import run_loop
    from reference.runs.runner import completed

    def measured(scenarios, loop):
        runs = []
        for s in scenarios:
            episode = Episode.from_scenario(s, trace=Trace())
            runs.append((s, run_loop(loop, episode), episode))
        m = fleet_metrics([e.trace for _, _, e in runs])
        return {"rounds": sum(sum(1 for st in e.ledger.steps if st.tool_calls) for _, _, e in runs),
                "dup": m["duplicate_call_rate"], "tools": m["candidate_tools"]["mean"],
                "answered": m["completion_rate"],  # a reply, whatever it says; "done" is the task, and only a completable one
                "done": f"{sum(s.expect.completable and completed(s, r) for s, r, _ in runs)} of "
                        f"{sum(s.expect.completable for s, _, _ in runs)}",
                "tokens": sum(e.trace.tokens for _, _, e in runs)}

    scenarios = catalogue()
    trend = [s for s in scenarios if s.name == "metric-trend"]
    lines = {}
    for loop in ("react", "guarded", "designed"):
        one, all_ = measured(trend, loop), measured(scenarios, loop)
        lines[loop] = (f"| `{loop}` | {one['rounds']} | {one['tools']:.2f} | {one['tokens']:,} | {all_['rounds']} | "
                       f"{all_['dup']:.1%} | {all_['answered']:.0%} | {all_['done']} | {all_['tokens']:,} |")
    return lines


def test_readme_design_table_matches_a_fresh_run():
    for line in design_lines().values():
        assert line in README, f"README.md should carry lesson 7's measured line:\n{line}"
    rows = run_catalogue(catalogue(), "designed")
    meets = f"meets fewer `expect` blocks ({sum(r['meets_expect'] for r in rows)} of {len(rows)})"
    assert meets in README, f"README.md should say: {meets}"


def test_readme_lesson_table_is_the_registry():
    """reference/lessons.py is the one list of lessons; the README's table shows it row by row."""
    table = README.split("## Lessons\n", 1)[1].strip().split("\n\n", 1)[0]
    rows = table.splitlines()[2:]  # under the header and its |---| line
    expected = [f"| {l.number} | `{l.notebook}` | `{l.module}` | {l.teaches} |" for l in LESSONS]
    assert rows == expected, "README.md's lesson table should read, from reference/lessons.py:\n" + "\n".join(expected)


def write() -> None:
    """Re-measure the demo table and the counts around it, in README.md."""
    import re

    path = Path(__file__).resolve().parent.parent / "README.md"
    text = path.read_text(encoding="utf-8")
    scenarios = catalogue()
    for loop, line in demo_lines().items():
        text = re.sub(rf"^\| `{loop}` \|.*$", lambda _: line, text, count=1, flags=re.M)
    design = text.index("Lesson 7 redesigns")  # the second table: lesson 7's, after the demo's
    head, tail = text[:design], text[design:]
    for loop, line in design_lines().items():
        tail = re.sub(rf"^\| `{loop}` \|.*$", lambda _: line, tail, count=1, flags=re.M)
    rows = run_catalogue(scenarios, "designed")
    tail = re.sub(r"meets fewer `expect` blocks \(\d+ of \d+\)",
                  f"meets fewer `expect` blocks ({sum(r['meets_expect'] for r in rows)} of {len(rows)})", tail)
    text = head + tail
    text = re.sub(r"task done \(of \d+ completable\)", f"task done (of {sum(s.expect.completable for s in scenarios)} "
                  "completable)", text)
    text = re.sub(r"over the \d+ scenarios", f"over the {len(scenarios)} scenarios", text)
    path.write_text(text, encoding="utf-8")
    print("rewrote README.md's demo table")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--write"]:
        write()
