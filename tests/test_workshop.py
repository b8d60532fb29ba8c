"""docs/workshop.md's timing table: one row per notebook, each with the time its own notebook gives."""
from __future__ import annotations

import re
from pathlib import Path

from reference.lessons import EXERCISES, EXTRA_NOTEBOOKS, LESSONS

ROOT = Path(__file__).resolve().parent.parent
WORKSHOP = (ROOT / "docs/workshop.md").read_text(encoding="utf-8")


def table_minutes() -> dict[str, int]:
    """The table under "How long each lesson takes": notebook stem -> the first "about N min" of its row."""
    section = WORKSHOP.split("## How long each lesson takes\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        found = re.match(r"\| [^|]* \| `([\w-]+)` \| about (\d+) min", line)
        if found:
            rows[found.group(1)] = int(found.group(2))
    return rows


def notebook_minutes(source: str) -> int:
    """The first "About N minutes" near the top of a notebook's source."""
    head = (ROOT / source).read_text(encoding="utf-8")[:2000]
    return int(re.search(r"[Aa]bout (\d+) minutes", head).group(1))


def test_every_notebook_has_a_row_with_its_own_time():
    rows = table_minutes()
    for notebook in [*LESSONS, *EXTRA_NOTEBOOKS]:
        stem = notebook.notebook.rsplit("/", 1)[-1].removesuffix(".ipynb")
        assert stem in rows, f"docs/workshop.md's timing table has no row for {stem}"
        assert rows[stem] == notebook_minutes(notebook.source), (
            f"docs/workshop.md gives {stem} {rows[stem]} min; its notebook says {notebook_minutes(notebook.source)}")


def test_every_exercise_has_its_estimated_time_in_the_table():
    section = WORKSHOP.split("## How long each lesson takes\n", 1)[1].split("\n## ", 1)[0]
    for exercise in EXERCISES:
        assert exercise.minutes, f"reference/lessons.py gives {exercise.exercise} no estimated time"
        row = next(line for line in section.splitlines() if line.startswith(f"| {exercise.number} |"))
        assert re.search(rf"about {exercise.minutes} min[^|]*\(`{exercise.exercise}`", row), (
            f"docs/workshop.md's row for lesson {exercise.number} should give {exercise.exercise} about "
            f"{exercise.minutes} min, as reference/lessons.py estimates it: {row}")


def test_the_agendas_give_the_mock_interview_the_time_its_notebook_gives():
    minutes = notebook_minutes("notebooks/src/mock_interview.py")
    agendas = WORKSHOP.split("## A 90-minute session", 1)[1].split("## What to run live", 1)[0]
    for line in agendas.splitlines():
        if "mock interview" in line and "min" in line:
            assert f"{minutes} min" in line, f"the agenda's mock interview should take {minutes} minutes: {line}"
    half_day = agendas.split("## A half day", 1)[1]
    slot = next(line for line in half_day.splitlines() if "mock interview" in line)
    start, end = re.match(r"\| (\d):(\d\d)-(\d):(\d\d)", slot).group(1, 2), re.match(
        r"\| \d:\d\d-(\d):(\d\d)", slot).group(1, 2)
    length = (int(end[0]) * 60 + int(end[1])) - (int(start[0]) * 60 + int(start[1]))
    assert length == minutes, f"the half day gives the mock interview {length} minutes; its notebook says {minutes}"
