"""Run somebody's loop (a learner's exercise, a candidate's whiteboard code) on a scenario, safely.

The loop under test may never stop, may break the protocol, may crash, exit, or lie; the grader
turns each of those into a finding with a story ("scenario `repeat-exact`: your loop made 28 model
calls; the step limit was 8") instead of a hung test, a dead process or a bare traceback.

By default the loop runs in a child process (reference/sandbox/child.py) with a wall-clock and a
memory limit; the scripted model and the tools stay here. Inside a process that is a sandbox already
(a `loopkit check` session) it runs in process under a wall-clock alarm (reference/sandbox/inline.py),
which reports the same failures the same way. The report is built from the grader's own
books: the model calls the model received, the tokens, the cost, the time. What the loop says (its
stop reason, its answer, its history) is taken only where the books do not contradict it.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..core.errors import ProtocolError, RunawayLoop
from ..core.messages import Message, ToolMessage, ToolSpec
from ..core.model import Turn
from ..core.result import RunResult, StopReason
from ..harness.episode import Episode
from .episode_server import EpisodeServer
from ..sim.scenario.loading import find
from ..sim.scenario.schema import Scenario
from .claims import contradiction, invented
from .failures import CandidateFailure, ClaimRejected
from .inline import run_inline, session
from .process import OUTPUT_KEPT, Limits
from .fresh import LoopEntry
from .child import ChildReport, can_fork, resolve, run_in_child, safe_repr
from .policy import RunPolicy
from .remote import NEUTRAL_NAME


class CappedModel:
    """Passes requests through until `cap` of them, then stops the runaway loop."""

    def __init__(self, inner: Any, cap: int):
        self.inner = inner
        self.cap = cap
        self.calls = 0
        self.tripped: RunawayLoop | None = None  # set once, even if the loop catches what it raised
        self.read: dict[str, None] = {}  # every tool result the model was sent, once (the grader reads them)
        self.refusals: list[str] = []  # what the API said to each request it refused (HTTP 400): made, counted,
        #                                no step records them, and the loop's process cannot hide them

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 tool_choice: str = "auto") -> Turn:
        self.calls += 1
        if self.calls > self.cap:
            self.tripped = RunawayLoop(f"more than {self.cap} model calls")
            raise self.tripped
        self.read.update((m.content, None) for m in messages if isinstance(m, ToolMessage))
        try:
            return self.inner.complete(messages, tools, tool_choice=tool_choice)
        except ProtocolError as exc:
            self.refusals.append(exc.message)
            raise

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copy, pickle): no wrapped model to ask
            raise AttributeError(name)
        return getattr(self.inner, name)


@dataclass
class CandidateRun:
    scenario: Scenario
    max_steps: int
    result: RunResult | None = None
    error: BaseException | None = None
    episode: Episode | None = None  # the grader's episode: its ledger and model are the books
    notes: list[str] = field(default_factory=list)
    output: str = ""  # what the loop printed (the first 64 KB)
    output_bytes: int = 0
    probe: Any = None  # what `probe(episode)` returned in the loop's process, after the loop
    invented: list[str] = field(default_factory=list)  # values in the degraded result's facts no tool returned

    @property
    def read(self) -> list[str]:
        """The tool results the model was sent, each once, as the grader's side received them."""
        capped = self.episode.model.inner if self.episode else None
        return list(getattr(capped, "read", {}))

    @property
    def model_calls(self) -> int:
        """Every request the model received, the refused ones included (the books' steps are the answered ones)."""
        if self.episode is None:
            return 0
        return len(self.episode.ledger.steps) + len(self.refusals)

    @property
    def refusals(self) -> list[str]:
        """The requests the grader's own model refused (HTTP 400), in the API's words."""
        return list(getattr(self.episode.model.inner, "refusals", [])) if self.episode else []

    def story(self) -> str:
        name = f"scenario `{self.scenario.name}`"
        if isinstance(self.error, RunawayLoop):
            return (f"{name}: your loop made {self.model_calls} model calls and was still going; "
                    f"the step limit was {self.max_steps}")
        if isinstance(self.error, ProtocolError):
            return (f"{name}: request {self.model_calls} was refused by the API (HTTP 400, "
                    f"{self.error.wire}): {self.error.message}")
        if isinstance(self.error, CandidateFailure):
            return f"{name}: {self.error.story}"
        if self.error is not None:
            return f"{name}: your loop raised {type(self.error).__name__}: {self.error}"
        assert self.result is not None
        return (f"{name}: stop reason {self.result.stop_reason.value}, {self.result.model_calls} model calls "
                f"(step limit {self.max_steps}), {self.result.tool_calls} tool calls")


def run_candidate(loop: Callable[..., RunResult] | str | Path | LoopEntry, scenario: Scenario | str, max_steps: int | None = None,
                  *, policy: RunPolicy | None = None, wire: str | None = None, seed: int | None = None,
                  probe: Callable[[Any], Any] | None = None, **changes: Any) -> CandidateRun:
    """Run `loop(episode, max_steps=...)` on a scenario under `policy` (reference/sandbox/policy.py); never
    raises for what the loop does.

    `loop` is a function, or the path of a candidate file (its `loop`, else its `react_loop`; or
    `path.py::name`). `probe(episode)` runs after the loop, in the loop's process, and its (JSON-able)
    value comes back as `attempt.probe`: for a test to read what the loop's own objects ended up as. What the
    loop prints is kept in `attempt.output`. A field of the policy may also be given as a keyword
    (`run_candidate(loop, "happy-path", sandbox="in-process")`): it changes that field of `policy`."""
    policy = (policy or RunPolicy()).with_(**changes)
    time_limit, memory_mb, echo, trusted = policy.time_limit, policy.memory_mb, policy.echo, policy.trusted
    sandbox: bool | str = {"child": True, "in-process": "in-process", "off": False}[policy.sandbox]
    runaway_margin = policy.runaway_margin
    if isinstance(scenario, str):
        scenario = find(scenario)
    steps = max_steps if max_steps is not None else scenario.limits.max_steps
    # a file's loop sees no scenario name (remote.py): nor may the ids the model gives its calls depend on one
    label = None if callable(loop) else NEUTRAL_NAME
    episode = Episode.from_scenario(scenario.model_copy(deep=True), seed=seed, wire=wire, label=label)
    capped = CappedModel(episode.model.inner, steps + runaway_margin)
    episode.model.inner = capped
    episode.loop_name = _loop_name(loop)
    attempt = CandidateRun(scenario, steps, episode=episode)
    inside = session()
    if inside is not None and inside.fork_per_run:  # a session's test judged again, a fork per run: its limits
        memory_mb = inside.memory_mb
        time_limit = time_limit if inside.run_seconds is None else min(time_limit, inside.run_seconds)
        inside = None
    if sandbox == "in-process" or (sandbox and inside is not None):
        if inside is not None and sandbox is True:
            inside.count_run()
        seconds = time_limit if inside is None or inside.run_seconds is None else min(time_limit, inside.run_seconds)
        return _contained(attempt, loop, capped, probe, seconds, inside.memory_mb if inside else memory_mb,
                          inside.std_fds if inside else None, echo)
    if not sandbox or not can_fork():
        if sandbox:
            attempt.notes.append("this system cannot fork: the loop ran in the grader's process, without limits")
        return _in_process(attempt, loop, capped, probe)
    server = EpisodeServer(episode, loop_records_tools=callable(loop) if trusted is None else trusted,
                           api=policy.api(episode) if policy.api else None)
    report = run_in_child(loop, episode, server, steps, Limits(time_limit, memory_mb), lambda: capped.tripped, probe)
    attempt.output, attempt.output_bytes, attempt.probe = report.output, report.output_bytes, report.probe
    if echo:
        _echo(report.output, report.output_bytes)
    return _judge(attempt, report, capped)


def _loop_name(loop: Any) -> str:
    if isinstance(loop, LoopEntry):
        return str(loop.args[0] if loop.args else loop.factory).rpartition("/")[2].removesuffix(".py")
    if isinstance(loop, (str, Path)):
        path, _, name = str(loop).partition("::")
        return name or Path(path).stem
    return getattr(loop, "__name__", "candidate")


def _judge(attempt: CandidateRun, report: ChildReport, capped: CappedModel) -> CandidateRun:
    """The result from the grader's books and the loop's claim, if the books bear it out."""
    assert attempt.episode is not None
    if capped.tripped is not None:  # the cap was hit: whatever the loop did next is beside the point
        attempt.error = capped.tripped
        return attempt
    if report.error is not None:
        attempt.error = report.error
        return attempt
    if report.claim is None:
        attempt.error = TypeError(f"the loop returned {report.returned}, not a RunResult from episode.finish(...)")
        return attempt
    claim = report.claim
    rejected = contradiction(claim["stop_reason"], attempt.episode)
    if rejected:
        attempt.error = ClaimRejected(rejected)
        return attempt
    attempt.episode.loop_name = claim["loop"] or attempt.episode.loop_name
    attempt.result = attempt.episode.finish(claim["stop_reason"], claim["messages"], claim["answer"],
                                            claim["degraded"], claim["detail"])
    attempt.invented = invented(attempt.result.degraded, attempt.episode)
    return attempt


def _echo(output: str, output_bytes: int) -> None:
    """What the loop printed, shown as if it had run here (a learner's debugging prints), up to a point."""
    if not output_bytes:
        return
    more = output_bytes - min(output_bytes, OUTPUT_KEPT)
    sys.stdout.write(output + (f"\n[... {more:,} more bytes of output not shown]\n" if more > 0 else ""))


def _contained(attempt: CandidateRun, loop: Any, capped: CappedModel, probe: Callable[[Any], Any] | None,
               seconds: float, memory_mb: int, std_fds: list[int] | None = None, echo: bool = True) -> CandidateRun:
    """The loop here under the alarm; a file's top-level code runs under it too, as in the fork sandbox."""
    assert attempt.episode is not None

    def start(episode: Episode, max_steps: int) -> Any:
        return resolve(loop)(episode, max_steps=max_steps)

    report = run_inline(start, attempt.episode, attempt.max_steps, seconds, memory_mb, probe, std_fds)
    attempt.probe, attempt.output, attempt.output_bytes = report.probe, report.output, report.output_bytes
    if echo:
        _echo(report.output, report.output_bytes)
    return _checked(attempt, report.result, capped.tripped or report.error)


def _in_process(attempt: CandidateRun, loop: Any, capped: CappedModel, probe: Callable[[Any], Any] | None
                ) -> CandidateRun:
    """A trusted loop, run here: the same checks, no limits (a loop that never returns hangs this process)."""
    episode = attempt.episode
    assert episode is not None
    try:
        result = resolve(loop)(episode, max_steps=attempt.max_steps)
        attempt.probe = probe(episode) if probe is not None else None
    except Exception as exc:  # the grader reports, it does not crash
        result, attempt.error = None, exc
    return _checked(attempt, result, capped.tripped or attempt.error)


def _checked(attempt: CandidateRun, result: Any, error: BaseException | None) -> CandidateRun:
    """A loop run here: its error, or its result if it is a RunResult the books bear out."""
    episode = attempt.episode
    assert episode is not None
    attempt.error = error
    if attempt.error is not None:
        return attempt
    if not isinstance(result, RunResult):
        attempt.error = TypeError(f"the loop returned {type(result).__name__} ({safe_repr(result)[:80]}), not a "
                                  "RunResult from episode.finish(...)")
        return attempt
    rejected = contradiction(result.stop_reason, episode)
    if rejected:
        attempt.error = ClaimRejected(rejected)
        return attempt
    attempt.result = result
    attempt.invented = invented(result.degraded, episode)
    return attempt
