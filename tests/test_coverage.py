"""docs/coverage.md names notebook sections by their headings: each one must exist."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_section_named_in_the_coverage_map_exists():
    doc = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    missing = []
    for number, section, heading in re.findall(r"\b(0\d) §(\d+) ([^;|]+?)\s*(?=;|\|)", doc):
        source = next((ROOT / "notebooks" / "src").glob(f"{number}_*.py"))
        if f"# ## {section}. {heading}" not in source.read_text(encoding="utf-8"):
            missing.append(f"{number} §{section} {heading}")
    assert not missing, "docs/coverage.md names sections no notebook has:\n  " + "\n  ".join(missing)
    assert len(re.findall(r"\b0\d §\d+", doc)) >= 30
