"""Mutation score of the exercise tests: cosmic-ray mutates solutions/exNN_*.py, one exercise at a time.

    python benchmarks/mutation.py              # every exercise
    python benchmarks/mutation.py ex03 ex05    # some
    python benchmarks/mutation.py --show       # print the diff of every surviving mutant
    python benchmarks/mutation.py --min 90     # exit 1 when an exercise scores below 90 %

Needs cosmic-ray (`pip install cosmic-ray`; not a dev dependency: a run takes tens of minutes, docs/mutation.md).

Why cosmic-ray and not mutmut: the exercise tests load their target *by path* (tests/helpers/targets.py,
`--target`), and cosmic-ray mutates the file on disk and runs an ordinary test command, so it needs no
import hook. mutmut 3 swaps functions through trampolines keyed by the module's import name, which a
module loaded from a path under a hashed name never matches.

The run happens in a temporary copy of solutions/ and tests/, never in the worktree, so an interrupted
run cannot leave a mutant behind. Each mutant runs the exercise's test file with `-x` and a time limit.

The rules of the count (docs/mutation.md says why):
- cosmic-ray never mutates a string literal, so a mutant cannot change only a message's wording;
- a binary operator is replaced by its nearest wrong operator only (+ and -, * and /, ...), not by all ten;
- a mutant that breaks the module or times out counts as killed (the tests noticed);
- a surviving mutant listed in docs/mutation.md's table of equivalent mutants is left out of the score;
  a listed row that no survivor matches any more (moved, renumbered or killed) is reported, never guessed.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "mutation.md"
TIMEOUT_SECONDS = 60  # per mutant; the unmutated test file takes about a second
NEAR_LINES = 10  # a survivor this close to a listed equivalent of the same operator may be that row, moved

# The nearest wrong operator for each binary operator; the other replacements are skipped.
NEAREST = {"Add": "Sub", "Sub": "Add", "Mul": "Div", "Div": "Mul", "FloorDiv": "Div", "Mod": "FloorDiv",
           "Pow": "Mul", "LShift": "RShift", "RShift": "LShift", "BitOr": "BitAnd", "BitAnd": "BitOr",
           "BitXor": "BitOr"}
SKIPPED_OPERATORS = [f"core/ReplaceBinaryOperator_{a}_(?!{b}$)" for a, b in NEAREST.items()]

CONFIG = """[cosmic-ray]
module-path = "solutions/{exercise}.py"
timeout = {timeout}
excluded-modules = []
test-command = "{python} -m pytest -x -q -p no:cacheprovider tests/test_{exercise}.py"

[cosmic-ray.distributor]
name = "local"

[cosmic-ray.filters.operators-filter]
exclude-operators = {skipped}
"""


@dataclass
class Mutant:
    operator: str
    occurrence: int
    line: int
    source: str
    diff: str

    @property
    def key(self) -> str:
        return f"{self.operator}#{self.occurrence}"


@dataclass
class Score:
    exercise: str
    killed: int = 0
    survived: list[Mutant] = field(default_factory=list)
    equivalent: list[Mutant] = field(default_factory=list)

    @property
    def counted(self) -> int:
        return self.killed + len(self.survived)

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.counted if self.counted else 100.0


def exercises() -> list[str]:
    return sorted(p.stem for p in (ROOT / "solutions").glob("ex[0-9][0-9]*_*.py"))  # ex03b_... too


def equivalents() -> dict[tuple[str, str], int]:
    """(exNN or exNNb, operator#occurrence) -> line, from the rows `| exNN | operator#N | line | reason |` of docs."""
    rows = {}
    if DOCS.exists():
        for line in DOCS.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\|\s*(ex\d\d[a-z]?)\s*\|\s*`?(core/\S+?#\d+)`?\s*\|\s*(\d+)\s*\|", line)
            if m:
                rows[(m.group(1), m.group(2))] = int(m.group(3))
    return rows


def run_exercise(exercise: str, work: Path) -> Score:
    from cosmic_ray.work_db import WorkDB, use_db  # the optional tool, imported once it is needed
    from cosmic_ray.work_item import WorkerOutcome

    config, session = work / f"{exercise}.toml", work / f"{exercise}.sqlite"
    config.write_text(CONFIG.format(exercise=exercise, timeout=TIMEOUT_SECONDS, python=sys.executable,
                                    skipped=json.dumps(SKIPPED_OPERATORS)),
                      encoding="utf-8")
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # nbval and hypothesis add seconds per mutant
    bindir = Path(sys.executable).parent

    def tool(*args: str) -> None:
        subprocess.run([str(bindir / args[0]), *args[1:]], cwd=work, env=env, check=True,
                       stdout=subprocess.DEVNULL)

    baseline = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               f"tests/test_{exercise}.py"], cwd=work, env=env, capture_output=True, text=True)
    if baseline.returncode != 0:
        raise SystemExit(f"{exercise}: the tests fail on the unmutated solution:\n{baseline.stdout[-2000:]}")
    tool("cosmic-ray", "init", str(config), str(session))
    tool("cr-filter-operators", str(session), str(config))
    tool("cosmic-ray", "exec", str(config), str(session))

    lines = (work / "solutions" / f"{exercise}.py").read_text(encoding="utf-8").splitlines()
    known = {key: line for (ex, key), line in equivalents().items() if ex == exercise.split("_")[0]}
    outcomes = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            spec = item.mutations[0]
            line = spec.start_pos[0]
            outcomes.append((Mutant(spec.operator_name, spec.occurrence, line, lines[line - 1].strip(),
                                    result.diff or ""), result.is_killed))
    score, warnings = tally(exercise, outcomes, known)
    for warning in warnings:
        print(f"  {warning}")
    return score


def tally(exercise: str, outcomes: list[tuple[Mutant, bool]], known: dict[str, int]) -> tuple[Score, list[str]]:
    """Count (mutant, killed) outcomes against the listed equivalents of one exercise (operator#occurrence -> line).

    A survivor is equivalent only when its operator, occurrence and line all match a row. When the solution
    changes, a listed mutant can move to another line, or keep its line and get another occurrence number
    (an operator's occurrences are numbered through the file, so a change above renumbers them): it is then
    an ordinary survivor, and the warnings name the row that probably lists it, to update."""
    score = Score(exercise)
    for mutant, killed in outcomes:
        if killed:
            score.killed += 1
        elif known.get(mutant.key) == mutant.line:
            score.equivalent.append(mutant)
        else:
            score.survived.append(mutant)
    matched = {m.key for m in score.equivalent}
    unmatched = {key: line for key, line in known.items() if key not in matched}  # rows no survivor matched
    warnings, named = [], set()
    for m in score.survived:
        if m.key in unmatched:
            warnings.append(f"{exercise} {m.key}: docs say line {unmatched[m.key]}, it is line {m.line} now "
                            f"({m.source}); update the row if it is the same mutant")
            named.add(m.key)
        for key, line in sorted(unmatched.items(), key=lambda row: abs(row[1] - m.line)):
            if key != m.key and key.split("#")[0] == m.operator and abs(line - m.line) <= NEAR_LINES:
                warnings.append(f"{exercise} {m.key} line {m.line} ({m.source}): the docs list {key} at line {line}, "
                                f"the same operator; if the occurrence was renumbered, update that row to {m.key} "
                                f"line {m.line}")
                named.add(key)
                break
    for key, line in unmatched.items():
        if key not in named:
            warnings.append(f"{exercise} {key} (docs: line {line}) is listed as equivalent but no survivor matches it: "
                            "killed now, or moved; update or remove the row")
    return score, warnings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("exercises", nargs="*", help="ex01 ... (default: all)")
    parser.add_argument("--show", action="store_true", help="print the diff of every surviving mutant")
    parser.add_argument("--min", type=float, default=0.0, help="exit 1 if an exercise scores below this")
    args = parser.parse_args(argv)
    chosen = [e for e in exercises() if not args.exercises or e.split("_")[0] in args.exercises]
    scores = []
    with tempfile.TemporaryDirectory(prefix="loopkit-mutation-") as tmp:
        work = Path(tmp)
        for part in ("solutions", "tests"):
            shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(ROOT / "pyproject.toml", work / "pyproject.toml")
        for exercise in chosen:
            print(f"{exercise}: mutating ...", flush=True)
            score = run_exercise(exercise, work)
            scores.append(score)
            for m in score.survived:
                print(f"  survived {m.key} line {m.line}: {m.source}")
                if args.show:
                    print("    " + m.diff.replace("\n", "\n    "))
    print(f"\n{'exercise':<24} {'mutants':>7} {'killed':>6} {'survived':>8} {'equivalent':>10} {'score':>6}")
    for s in scores:
        print(f"{s.exercise:<24} {s.counted + len(s.equivalent):>7} {s.killed:>6} {len(s.survived):>8} "
              f"{len(s.equivalent):>10} {s.percent:>5.1f}%")
    return 1 if any(s.percent < args.min for s in scores) else 0


if __name__ == "__main__":
    sys.exit(main())
