"""Run a candidate on a set of scenarios, each in the sandbox, and keep what the rubric needs from each run.

Scenario sets (`loopkit grade --scenarios SET`): `interview` (the default: what the nine rubric items
need), `quick` (one scenario per behaviour item), `all` (the whole catalogue), or a hiring team's own
scenario files (a folder of them, or one file: `scenario_set`), which the candidate has never seen. A
scenario's name is the grader's key (the rubric reads each run by it; the candidate's run never sees it), so
a held-out scenario that takes the place of a catalogue one carries that one's name. A kit or plain loop also
runs happy-path on the two other wire formats; an SDK loop speaks its SDK's wire only.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..core.errors import ProtocolError, RunawayLoop
from ..core.result import StopReason
from ..sandbox.failures import CandidateFailure, CandidateRaised
from ..sandbox.fresh import LoopEntry
from ..sandbox.grading import CandidateRun, run_candidate
from ..sandbox.policy import RunPolicy
from .api import GraderApi
from ..runs.runner import completed, evaluate
from ..sim.scenario.loading import catalogue, find, load_scenario
from ..sim.scenario.schema import Scenario
from .content import facts_of
from .kinds import Candidate

COOPERATIVE = ("happy-path", "paging-legit", "polling-legit", "new-arguments-legit")
SETS: dict[str, tuple[str, ...]] = {
    "interview": COOPERATIVE + ("repeat-exact", "repeat-noisy", "repeat-exact-cooperative", "token-blowup",
                                "cost-blowup", "tool-down", "exception-secret", "flaky-timeout", "bad-date-format"),
    "quick": ("happy-path", "repeat-exact", "repeat-noisy", "token-blowup", "tool-down", "exception-secret"),
}
OTHER_WIRES = ("openai-responses", "anthropic")  # happy-path again on these (the catalogue is openai-chat)
GIVE_UP_AFTER = 2  # runs that hit the time limit: after this many, the rest is not run (a hung loop)


@dataclass
class Outcome:
    """One scenario run, as the rubric reads it."""

    scenario: str
    wire: str
    passed: bool  # no failure, and every check of the scenario's `expect` block holds
    story: str
    checks: dict[str, bool] = field(default_factory=dict)
    failed_checks: list[str] = field(default_factory=list)
    stop_reason: str | None = None
    completed: bool = False
    model_calls: int = 0
    error: str | None = None  # the failure's class name
    escaped: bool = False  # an exception from a tool or the model left the loop
    http_errors: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)  # tool results the model was sent
    answer: str | None = None
    degraded: Any = None
    first_repeat: int | None = None  # the model request that first repeated an earlier call
    skipped: bool = False
    facts: list[str] = field(default_factory=list)  # what the tools really returned (the books), quotable
    request: str = ""  # what the user asked
    answered_then_continued: bool = False  # the model answered (no tool calls) and the loop asked it again
    invented: list[str] = field(default_factory=list)  # values in the degraded result's facts that no tool returned
    output: str = ""  # what the candidate's process printed (its first 64 KB), never shown as the grader's own
    output_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        fields = ("scenario", "wire", "passed", "story", "failed_checks", "stop_reason", "completed", "model_calls",
                  "error", "http_errors", "skipped", "output", "output_bytes")
        return {name: getattr(self, name) for name in fields}


def scenario_names(name: str) -> tuple[str, ...]:
    if name == "all":
        return tuple(s.name for s in catalogue())
    if name not in SETS:
        raise KeyError(f"no scenario set {name!r}; choose one of: {', '.join((*SETS, 'all'))}")
    return SETS[name]


def scenario_set(spec: str) -> list[Scenario]:
    """The scenarios of a named set, or of a folder of scenario files (`*.yaml`, `*.yml`), or of one file: read
    and checked now, before any candidate code runs. KeyError for an unknown set, an empty folder or two files of
    one name; ScenarioError (naming the file and the field) for a malformed file."""
    path = Path(spec)
    if path.is_dir():
        files = sorted([*path.glob("*.yaml"), *path.glob("*.yml")])
        if not files:
            raise KeyError(f"no scenario files (*.yaml, *.yml) in {spec}")
        scenarios = [load_scenario(f) for f in files]
    elif path.is_file() or path.suffix in (".yaml", ".yml"):
        scenarios = [load_scenario(path)]
    else:
        return [find(name) for name in scenario_names(spec)]
    names = [s.name for s in scenarios]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise KeyError(f"two scenario files in {spec} have the same name: {', '.join(twice)}")
    return scenarios


def run_suite(candidate: Candidate, scenarios: Sequence[Scenario | str], *, time_limit: float, memory_mb: int,
              after_run: Callable[[], None] | None = None) -> list[Outcome]:
    loop = str(candidate.path) + f"::{candidate.function}" if candidate.kind == "kit" else entry(candidate)
    # read and checked before any of the candidate's code runs
    frozen = {s.name: s for s in (s if isinstance(s, Scenario) else find(s) for s in scenarios)}
    plan = [(name, candidate.wire) for name in frozen]
    if candidate.wire is None and "happy-path" in frozen:
        plan += [("happy-path", wire) for wire in OTHER_WIRES]
    policy = RunPolicy(time_limit=time_limit, memory_mb=memory_mb, echo=False, trusted=False,
                       api=None if candidate.kind == "kit" else GraderApi)
    outcomes: list[Outcome] = []
    for name, wire in plan:
        if sum(o.error == "TimeLimit" for o in outcomes) >= GIVE_UP_AFTER:
            outcomes.append(Outcome(name, wire or "openai-chat", False, f"scenario `{name}`: not run (the loop hit "
                                    f"the time limit {GIVE_UP_AFTER} times)", skipped=True))
            continue
        attempt = run_candidate(loop, frozen[name], wire=wire, policy=policy)
        if after_run is not None:
            after_run()
        outcomes.append(outcome_of(attempt, wire or attempt.scenario.model.wire))
    return outcomes


def entry(candidate: Candidate) -> LoopEntry:
    """A plain or SDK candidate, as its fresh interpreter builds it (the SDK imported before the clock starts)."""
    sdk = {"anthropic": ("anthropic",), None: ()}.get(candidate.wire, ("openai",))
    return LoopEntry("reference.grade.child:candidate_loop", (str(candidate.path), candidate.kind, candidate.function,
                     list(candidate.params), candidate.is_async), ("reference.grade.child", "httpx2", *sdk))


def outcome_of(attempt: CandidateRun, wire: str) -> Outcome:
    scenario, episode, result = attempt.scenario, attempt.episode, attempt.result
    assert episode is not None
    events = [r for r in episode.trace.records if r.get("kind") == "event" and r.get("event") == "http_error"]
    out = Outcome(scenario.name, wire, False, attempt.story(), model_calls=attempt.model_calls, read=attempt.read,
                  http_errors=[str(e.get("message", ""))[:300] for e in events], first_repeat=_first_repeat(episode),
                  facts=_facts(episode), request=scenario.user,
                  answered_then_continued=any(not s.tool_calls and s.finish_reason == "stop"
                                              for s in episode.ledger.steps[:-1]),
                  output=attempt.output, output_bytes=attempt.output_bytes)
    error = attempt.error
    if isinstance(error, ProtocolError):
        out.http_errors.append(error.message)
    if not out.http_errors:  # refused by the grader's own model, though the candidate's process reported nothing
        out.http_errors = [text[:300] for text in attempt.refusals]
    if error is not None:
        out.error = type(error).__name__
        # the grader's own exception objects (a tool's, the model's) come back as they were: one let through
        out.escaped = not isinstance(error, (CandidateFailure, RunawayLoop, ProtocolError, TypeError))
        if isinstance(error, CandidateRaised) and error.type_name in ("BadRequestError", "ProtocolError"):
            out.http_errors.append(error.message[:300])  # an SDK's (or llm()'s) HTTP 400, let through
        return out
    assert result is not None
    checks = evaluate(scenario, result)
    out.checks = {c.name: c.ok for c in checks}
    out.failed_checks = [c.detail for c in checks if not c.ok]
    out.passed = not out.failed_checks and not out.http_errors
    out.stop_reason, out.completed = result.stop_reason.value, completed(scenario, result)
    out.answer, out.degraded, out.invented = result.answer, _plain(result.degraded), attempt.invented
    if out.failed_checks:
        out.story += "; expected otherwise: " + "; ".join(out.failed_checks)
    return out


def _first_repeat(episode: Any) -> int | None:
    """The first model request whose tool call repeats one asked for earlier (same tool, same arguments)."""
    seen: set[tuple[str, str]] = set()
    for step in episode.ledger.steps:
        for call in step.tool_calls:
            try:
                key = (call["name"], json.dumps(json.loads(call["arguments"]), sort_keys=True))
            except (ValueError, TypeError):
                key = (call["name"], str(call["arguments"]))
            if key in seen:
                return step.step
            seen.add(key)
    return None


def _facts(episode: Any) -> list[str]:
    """Every quotable fact of the run's successful tool results, from the grader's own ledger."""
    records = [r for step in episode.ledger.steps for r in step.tools] + list(episode.ledger.orphan_tools)
    return list(dict.fromkeys(f for r in records if r.ok and r.outcome for f in facts_of(r.outcome.get("data"))))


def _plain(degraded: Any) -> Any:
    """The degraded result as plain data (a dict), whatever the loop handed back."""
    if degraded is None or isinstance(degraded, (dict, str)):
        return degraded
    to_dict = getattr(degraded, "to_dict", None)
    return to_dict() if callable(to_dict) else str(degraded)


def stop_kind(outcome: Outcome) -> str | None:
    return StopReason(outcome.stop_reason).kind if outcome.stop_reason else None
