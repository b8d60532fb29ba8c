"""The grade of one candidate file, and the report in Markdown, HTML or JSON (`loopkit grade --format`)."""
from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..interview.bank import load_bank
from ..sandbox.policy import MEMORY_LIMIT_MB, TIME_LIMIT
from ..sandbox.orphans import is_non_dumpable
from ..sandbox.zygote import isolation
from .kinds import NotACandidate, detect
from .rubric import Flag, Verdict, red_flags, total, verdicts
from .suite import Outcome, run_suite, scenario_set

MARK = {"evidenced": "yes", "partly": "partly", "contradicted": "NO", "ask": "ask"}


@dataclass
class Grade:
    path: str
    kind: str | None  # None: not a candidate (see `problem`)
    scenario_set: str
    runs: list[Outcome] = field(default_factory=list)
    rubric: list[Verdict] = field(default_factory=list)
    red_flags: list[Flag] = field(default_factory=list)
    total: int = 0
    problem: str | None = None
    sandbox: str = ""  # how the candidate's processes were isolated, as the grader set them up

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.runs)

    def reasoning(self) -> str:
        if self.problem:
            return f"Not graded: {self.problem}"
        scale = load_bank().scale
        earned = [v for v in self.rubric if v.points]
        flags = f"; {len(self.red_flags)} red flag(s), -{scale.red_flag_cost} each" if self.red_flags else ""
        band = (f"At or above the pass line ({scale.pass_line}: the bare loop done right)"
                if self.total >= scale.pass_line else
                f"Below the pass line ({scale.pass_line}: the bare loop, its history and its step cap right)")
        if self.total >= scale.top:
            band = f"Production level ({scale.top}: everything a run can show)"
        stories = {o.story.partition(": ")[2] for o in self.runs}
        if self.runs and not self.passed and len(stories) == 1:
            band = f"Every run ended the same way: {stories.pop()}. " + band
        bonus = [v for v in self.rubric if v.bonus]
        worth = max((i.points for i in load_bank().rubric if i.bonus), default=0)
        return (f"{self.total} of {scale.top} from behaviour: "
                + (", ".join(f"{v.id} +{v.points}" for v in earned) or "nothing")
                + f"{flags}. {band}. The {len(bonus)} bonus item(s) can only be asked: up to +{worth} each.")

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "scenarios": self.scenario_set, "total": self.total,
                "problem": self.problem, "sandbox": self.sandbox, "reasoning": self.reasoning(),
                "passed": self.passed,
                "runs": [o.to_dict() for o in self.runs], "rubric": [asdict(v) for v in self.rubric],
                "red_flags": [asdict(f) for f in self.red_flags]}


def grade_file(path: str | Path, scenarios: str = "interview", *, time_limit: float = TIME_LIMIT,
               memory_mb: int = MEMORY_LIMIT_MB, lang: str = "en", after_run: Callable[[], None] | None = None) -> Grade:
    """Grade one candidate file; never raises for what the file is or does (the report says). `after_run` is
    called after each run (the CLI stops what the candidate's processes left running)."""
    grade = Grade(str(path), None, scenarios)
    try:
        candidate = detect(path)
    except NotACandidate as exc:
        grade.problem = str(exc)
        return grade
    bank = load_bank()
    grade.kind = candidate.kind
    grade.runs = run_suite(candidate, scenario_set(scenarios), time_limit=time_limit, memory_mb=memory_mb,
                          after_run=after_run)
    grade.rubric = verdicts(bank, grade.runs, lang)
    grade.red_flags = red_flags(bank, grade.runs, lang)
    grade.total = total(bank, grade.rubric, grade.red_flags)
    closed = "; the grader non-dumpable" if is_non_dumpable() else ""
    grade.sandbox = ("each run in a fresh process forked by a zygote (no scenario in its memory)" + closed
                     + (f"; {isolation()}" if isolation() else ""))
    return grade


def to_markdown(grade: Grade) -> str:
    lines = [f"# Grade: {grade.path}", "", f"Kind: {grade.kind or 'not a candidate'}. Scenarios: "
             f"{grade.scenario_set}. **Total: {grade.total}**", "", grade.reasoning(), ""]
    lines += [f"Sandbox: {grade.sandbox}.", ""] if grade.sandbox else []
    if grade.problem:
        return "\n".join(lines)
    lines += [f"## Scenarios ({grade.passed} of {len(grade.runs)} passed)", ""]
    lines += [f"- {'PASS' if o.passed else 'FAIL'} `{o.scenario}` ({o.wire}): {_one_line(o.story)}" for o in grade.runs]
    lines += ["", "## Rubric", "", "| item | | points | evidence, or what to ask |", "|---|---|---|---|"]
    for v in grade.rubric:
        said = f"Ask: {v.ask}" if v.status == "ask" else v.evidence
        lines.append(f"| {v.title}{' (bonus)' if v.bonus else ''} | {MARK[v.status]} | {v.points} | "
                     f"{_one_line(said)} |")
    lines += ["", "## Red flags", ""]
    lines += [f"- {f.text} Seen: {_one_line(f.evidence)}" for f in grade.red_flags] or ["- none seen in the runs"]
    lines += ["", "## What the candidate printed", ""]
    printed = [o for o in grade.runs if o.output_bytes]
    for o in printed:  # an indented block: no line of it can close the block or read as the report's own
        lines += [f"`{o.scenario}` ({o.wire}), {_printed(o)}:", ""]
        lines += ["    " + line for line in escaped(o.output).split("\n")] + [""]
    lines += [] if printed else ["- nothing"]
    return "\n".join(lines) + "\n"


def to_html(grade: Grade) -> str:
    e = html.escape
    rows = "".join(f"<tr><td>{e(v.title)}</td><td>{MARK[v.status]}</td><td>{v.points}</td><td>"
                   f"{e('Ask: ' + v.ask if v.status == 'ask' else v.evidence)}</td></tr>" for v in grade.rubric)
    runs = "".join(f"<li>{'PASS' if o.passed else 'FAIL'} <code>{e(o.scenario)}</code> ({e(o.wire)}): "
                   f"{e(_one_line(o.story))}</li>" for o in grade.runs)
    flags = "".join(f"<li>{e(f.text)} Seen: {e(_one_line(f.evidence))}</li>" for f in grade.red_flags)
    printed = "".join(f"<h3><code>{e(o.scenario)}</code> ({e(o.wire)}), {_printed(o)}</h3><pre>{e(escaped(o.output))}"
                      "</pre>" for o in grade.runs if o.output_bytes) or "<p>nothing</p>"
    return (f"<!doctype html><meta charset='utf-8'><title>Grade: {e(grade.path)}</title>"
            f"<h1>Grade: {e(grade.path)}</h1><p>Kind: {e(grade.kind or 'not a candidate')}. "
            f"<b>Total: {grade.total}</b></p><p>{e(grade.reasoning())}</p><p>Sandbox: {e(grade.sandbox)}</p>"
            f"<h2>Scenarios</h2><ul>{runs}</ul>"
            f"<h2>Rubric</h2><table border='1'><tr><th>item</th><th></th><th>points</th><th>evidence</th></tr>{rows}"
            f"</table><h2>Red flags</h2><ul>{flags or '<li>none seen in the runs</li>'}</ul>"
            f"<h2>What the candidate printed</h2>{printed}\n")


def to_json(grade: Grade) -> str:
    return json.dumps(grade.to_dict(), indent=2, ensure_ascii=False) + "\n"


def escaped(text: str) -> str:
    """The candidate's text with every control character but the newline written out (`\\x1b`, `\\r`): it cannot
    move a terminal's cursor, rewrite a line of the report, or ring a bell."""
    return "".join(c if c == "\n" or c.isprintable() else repr(c)[1:-1] for c in text)


def _printed(outcome: Outcome) -> str:
    kept = len(outcome.output.encode("utf-8"))
    return f"{outcome.output_bytes:,} bytes" + (f" (the first {kept:,} shown)" if kept < outcome.output_bytes else "")


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(escaped(str(text)).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 1] + "…"
