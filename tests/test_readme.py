"""The README's figures are measured, and stay measured: recompute them and compare."""
from __future__ import annotations

from pathlib import Path

from reference import catalogue
from reference.lessons import LESSONS
from reference.runs.runner import run_catalogue

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_readme_demo_table_matches_a_fresh_run():
    scenarios = catalogue()
    for loop in ("react", "guarded"):
        rows = run_catalogue(scenarios, loop)
        tokens = sum(r["input_tokens"] + r["output_tokens"] for r in rows)
        line = (f"| `{loop}` | {sum(r['completed'] for r in rows)} | "
                f"{sum(r['meets_expect'] for r in rows)} of {len(rows)} | {sum(r['model_calls'] for r in rows)} | "
                f"{tokens:,} | ${sum(r['cost_usd'] for r in rows):,.2f} | {sum(r['sim_seconds'] for r in rows):,.1f} s |")
        assert line in README, f"README.md should carry the measured line:\n{line}"
    completable = sum(s.expect.completable for s in scenarios)
    assert f"task done (of {completable} completable)" in README and f"over the {len(scenarios)} scenarios" in README


def test_readme_lesson_table_is_the_registry():
    """reference/lessons.py is the one list of lessons; the README's table shows it row by row."""
    table = README.split("## Lessons\n", 1)[1].strip().split("\n\n", 1)[0]
    rows = table.splitlines()[2:]  # under the header and its |---| line
    expected = [f"| {l.number} | `{l.notebook}` | `{l.module}` | {l.teaches} |" for l in LESSONS]
    assert rows == expected, "README.md's lesson table should read, from reference/lessons.py:\n" + "\n".join(expected)
