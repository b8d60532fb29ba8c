"""`loopkit grade` agrees with an expert: every candidate file of the panel carries, in its header, the
score an expert gave it from the card's definitions (`Expert score: N. Why: ...`), written before the
grader ran on it. The grader must rank them as the expert did (Spearman >= 0.9), never invert two
candidates 15 or more points apart, give the bare loop of every kind the pass line within 5 points,
and the full guarded loop the top. The whole panel is `slow`; the default suite grades a quick subset.
"""
from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path

import pytest

from reference.grade import grade_file
from reference.interview.bank import load_bank

ROOT = Path(__file__).resolve().parent.parent
PANEL_DIRS = ("tests/candidates", "docs/candidates", "tests/calibration")
EXPERT = re.compile(r"Expert score:\s*(\d+)")
BARE_LOOPS = ("docs/candidates/kit_api.py", "docs/candidates/plain_functions.py", "docs/candidates/openai_chat.py",
              "docs/candidates/openai_responses.py", "docs/candidates/anthropic_messages.py",
              "tests/candidates/openai_async.py")
QUICK = ("tests/candidates/guarded_full.py", "docs/candidates/kit_api.py", "tests/candidates/while_true.py",
         "tests/candidates/exception_escapes.py", "tests/candidates/drops_assistant_turn.py")
TIME_LIMIT = 30.0  # a guard against a hang, not a judge: no panel loop needs a second


def expert_scores() -> dict[str, int]:
    scores = {}
    for folder in PANEL_DIRS:
        for path in sorted((ROOT / folder).glob("*.py")):
            found = EXPERT.search(path.read_text(encoding="utf-8")[:3000])
            if found:
                scores[str(path.relative_to(ROOT))] = int(found.group(1))
    return scores


def ranks(values: list[float]) -> list[float]:
    """Average ranks (ties share the mean of their positions), as Spearman's rho needs."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    mean_a, mean_b = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(ra, rb))
    var = (sum((x - mean_a) ** 2 for x in ra) * sum((y - mean_b) ** 2 for y in rb)) ** 0.5
    return cov / var if var else 1.0


def inversions(expert: dict[str, int], grader: dict[str, int], apart: int = 15) -> list[str]:
    return [f"{a} (expert {expert[a]}, grader {grader[a]}) vs {b} (expert {expert[b]}, grader {grader[b]})"
            for a, b in combinations(sorted(expert), 2)
            if abs(expert[a] - expert[b]) >= apart and (expert[a] - expert[b]) * (grader[a] - grader[b]) < 0]


def test_spearman_and_ranks_are_right_on_small_cases():
    assert ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    assert inversions({"a": 0, "b": 20}, {"a": 50, "b": 10}) and not inversions({"a": 0, "b": 10}, {"a": 9, "b": 1})


def test_every_panel_file_has_an_expert_score_in_its_header():
    scores, top = expert_scores(), load_bank().scale.top
    assert len(scores) >= 15 and all(0 <= s <= top for s in scores.values()), scores
    assert set(BARE_LOOPS) <= set(scores) and set(QUICK) <= set(scores)


def agreement(paths: tuple[str, ...] | list[str]) -> tuple[dict[str, int], dict[str, int]]:
    expert = {p: s for p, s in expert_scores().items() if p in paths}
    grader = {p: grade_file(ROOT / p, time_limit=TIME_LIMIT).total for p in expert}
    return expert, grader


def test_the_quick_subset_agrees_with_the_expert():
    expert, grader = agreement(QUICK)
    scale = load_bank().scale
    assert grader["tests/candidates/guarded_full.py"] == scale.top, grader
    assert abs(grader["docs/candidates/kit_api.py"] - scale.pass_line) <= 5, grader
    assert not inversions(expert, grader), inversions(expert, grader)
    assert spearman([expert[p] for p in expert], [grader[p] for p in expert]) >= 0.9, (expert, grader)


@pytest.mark.slow
def test_the_whole_panel_agrees_with_the_expert():
    expert, grader = agreement(list(expert_scores()))
    rho = spearman([expert[p] for p in expert], [grader[p] for p in expert])
    table = "\n".join(f"{expert[p]:>3} {grader[p]:>3}  {p}" for p in sorted(expert, key=expert.get))
    assert rho >= 0.9, f"Spearman {rho:.3f}\n{table}"
    assert not inversions(expert, grader), inversions(expert, grader)
    scale = load_bank().scale
    assert all(abs(grader[p] - scale.pass_line) <= 5 for p in BARE_LOOPS), table
