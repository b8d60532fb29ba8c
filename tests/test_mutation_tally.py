"""benchmarks/mutation.py's count: which survivors are listed equivalents, and which rows of the list went stale.

No mutation run here (cosmic-ray is not a dev dependency): `tally` is given the outcomes."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("loopkit_mutation_script", ROOT / "benchmarks" / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


MUTATION = _script()
OR = "core/ReplaceAndWithOr"


def survivor(occurrence: int, line: int, operator: str = OR):
    return MUTATION.Mutant(operator, occurrence, line, "if ok and not result.is_error:", ""), False


def test_a_survivor_listed_with_its_occurrence_and_line_is_equivalent():
    score, warnings = MUTATION.tally("ex03", [survivor(8, 136), (MUTATION.Mutant(OR, 9, 140, "x", ""), True)],
                                     {f"{OR}#8": 136})
    assert (score.killed, len(score.survived), len(score.equivalent), warnings) == (1, 0, 1, [])


def test_a_renumbered_equivalent_is_a_survivor_and_its_row_is_named():
    score, warnings = MUTATION.tally("ex03", [survivor(8, 136)], {f"{OR}#9": 136})
    assert [m.key for m in score.survived] == [f"{OR}#8"] and not score.equivalent
    assert len(warnings) == 1 and f"{OR}#9" in warnings[0] and f"{OR}#8" in warnings[0] and "136" in warnings[0], warnings


def test_a_moved_equivalent_is_a_survivor_and_its_row_is_named():
    score, warnings = MUTATION.tally("ex03", [survivor(8, 139)], {f"{OR}#8": 136})
    assert len(score.survived) == 1 and len(warnings) == 1, warnings
    assert "136" in warnings[0] and "139" in warnings[0], warnings


def test_a_survivor_far_away_or_of_another_operator_names_no_row():
    outcomes = [survivor(8, 200), survivor(0, 136, "core/ReplaceOrWithAnd")]
    score, warnings = MUTATION.tally("ex03", outcomes, {f"{OR}#9": 136})
    assert len(score.survived) == 2
    assert len(warnings) == 1 and "no survivor matches" in warnings[0], warnings


def test_a_listed_row_that_nothing_survives_on_is_reported():
    score, warnings = MUTATION.tally("ex03", [(MUTATION.Mutant(OR, 8, 136, "x", ""), True)], {f"{OR}#8": 136})
    assert score.killed == 1 and len(warnings) == 1 and f"{OR}#8" in warnings[0], warnings
