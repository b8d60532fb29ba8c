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
        lines[loop] = (f"| `{loop}` | {sum(r['completed'] for r in rows)} | "
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
    text = re.sub(r"task done \(of \d+ completable\)", f"task done (of {sum(s.expect.completable for s in scenarios)} "
                  "completable)", text)
    text = re.sub(r"over the \d+ scenarios", f"over the {len(scenarios)} scenarios", text)
    path.write_text(text, encoding="utf-8")
    print("rewrote README.md's demo table")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--write"]:
        write()
