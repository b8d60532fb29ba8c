"""docs/glossary.md: one name for each kind of exit and each loop shape, kept on the code, and used."""
from __future__ import annotations

import re
from pathlib import Path

from reference.core.result import STOP_KINDS, StopReason
from reference.diagnosis.shapes import FIXES
from reference.parts.guards.thresholds import STOP_REASONS

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")


def table(heading: str) -> dict[str, str]:
    """The first column (bold) -> the row, of the table under `heading`."""
    section = GLOSSARY.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return {m.group(1): line for line in section.splitlines() if (m := re.match(r"\| \*\*([\w ]+)\*\* \|", line))}


def test_every_kind_of_exit_is_defined_with_its_stop_reasons():
    kinds = table("The kinds of exit")
    assert {k.replace(" ", "_") for k in kinds} == set(STOP_KINDS.values()), sorted(kinds)
    for reason in StopReason:
        row = kinds[reason.kind.replace("_", " ")]
        assert f"`{reason.value}`" in row, f"docs/glossary.md: {reason.value} belongs to the {reason.kind} kind"


def test_every_loop_shape_is_defined_and_every_guard_pattern_named():
    shapes = table("The loop shapes")
    assert set(shapes) == set(FIXES), f"the glossary's shapes {sorted(shapes)}, the classifier's {sorted(FIXES)}"
    patterns = "".join(shapes.values())
    for pattern in STOP_REASONS:
        assert f"`{pattern}`" in patterns, f"docs/glossary.md names no shape for the guard's pattern {pattern}"


def test_lesson_2_names_the_six_kinds_and_lesson_6_and_exercise_6_point_at_the_glossary():
    lesson2 = (ROOT / "notebooks/src/02_exits_and_budgets.py").read_text(encoding="utf-8")
    section = lesson2.split("# ## 1. ", 1)[1].split("# ## 2. ", 1)[0]
    for kind in table("The kinds of exit"):
        assert f"**{kind}**" in section, f"lesson 2 section 1 should name the {kind} kind as the glossary does"
    for path in ("notebooks/src/06_trace_diagnosis.py", "exercises/ex06_trace_diagnosis.py",
                 "notebooks/src/02_exits_and_budgets.py", "notebooks/src/03_fingerprint_guards.py"):
        assert "docs/glossary.md" in (ROOT / path).read_text(encoding="utf-8"), f"{path} should point at docs/glossary.md"
