"""The grader never hangs and never dies, whatever the loop under test does, and says what it did.

The hostile loops (tests/helpers/hostile_loops.py) run in one subprocess (`python -m tests.helpers.hostile_loops`),
under 256 MB: a grader that hung or died would fail these tests rather than take pytest with it. The loops that
never return run under a 0.5 s limit; every other run under a limit no run of a few milliseconds reaches on a busy
machine (a guard against a hang, not a measure), so that no outcome depends on how busy the machine is. The
subprocess writes one record per loop: the story, the verdict, and the story of a clean run of the same scenario
after it, in the same process (nothing the hostile loop did may leak into it). Each hostile loop is run as a
candidate file is (`hostile_loops.py::name`: in a fresh interpreter), the clean runs around it as a test's own
function is (in a fork). Each record is also checked against the clean run before it.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
LIMIT = 0.5  # for the loops that never return: they reach it however busy the machine is
GUARD = 120.0  # for every other run: a hang, not a measure
MEMORY_MB = 256
NEVER_RETURN = {"busy_loop", "sleeps"}

# loop -> (scenario, what its story must say, the error's class name or None for a result)
CASES = {
    "busy_loop": ("repeat-exact", "ran past the 0.5 s time limit", "TimeLimit"),
    "sleeps": ("repeat-exact", "ran past the 0.5 s time limit (0 model calls by then)", "TimeLimit"),
    "reads_the_script": ("repeat-exact", "stop reason max_steps, 8 model calls (step limit 8), 8 tool calls", None),
    "swaps_the_capped_model": ("repeat-exact", "your loop made 28 model calls and was still going; the step limit "
                                               "was 8", "RunawayLoop"),
    "catches_the_runaway": ("repeat-exact", "your loop made 28 model calls and was still going", "RunawayLoop"),
    "exits": ("repeat-exact", "your loop called sys.exit(3)", "CandidateExited"),
    "exits_quietly": ("repeat-exact", "your loop called sys.exit()", "CandidateExited"),
    "interrupts": ("repeat-exact", "your loop raised KeyboardInterrupt", "CandidateRaised"),
    "raises_a_base_exception": ("repeat-exact", "your loop raised NotAnException: caught by nothing",
                                "CandidateRaised"),
    "os_exit": ("repeat-exact", "your loop's process ended abruptly with exit code 3 (os._exit?)", "ProcessDied"),
    "kills_itself": ("repeat-exact", "your loop's process was killed by signal SIGKILL", "ProcessDied"),
    "leaves_a_thread": ("happy-path", "stop reason completed, 2 model calls (step limit 8), 2 tool calls", None),
    "forks_sleepers": ("happy-path", "stop reason completed, 2 model calls (step limit 8), 2 tool calls", None),
    "mutates_internals": ("repeat-exact", "stop reason max_steps, 3 model calls (step limit 8), 3 tool calls", None),
    "forges_completion": ("happy-path", "rejected: your loop reported stop reason `completed` without calling the "
                                        "model", "ClaimRejected"),
    "claims_completion_mid_task": ("happy-path", "the model's last turn (request 1) asked for 2 tool call(s) instead "
                                                 "of answering", "ClaimRejected"),
    "allocates_10_gb": ("repeat-exact", f"your loop exceeded the memory limit ({MEMORY_MB} MB)", "MemoryLimit"),
    "returns_a_dict": ("repeat-exact", "the loop returned dict ({'stop_reason': 'completed', 'answer': 'In "
                                       "transit.'}), not a RunResult from episode.finish(...)", "TypeError"),
    "floods_stdout": ("happy-path", "stop reason completed, 2 model calls (step limit 8), 2 tool calls", None),
    "recurses": ("repeat-exact", "your loop raised RecursionError: maximum recursion depth exceeded",
                 "CandidateRaised"),
    "raises_a_huge_message": ("repeat-exact", "your loop raised ValueError: xxxx", "CandidateRaised"),
    "closes_the_channel": ("repeat-exact", "your loop's process sent the grader something it cannot read: it closed "
                                           "its channel to the grader and went on", "BrokenChannel"),
    "sends_garbage": ("repeat-exact", "your loop's process sent the grader something it cannot read: a message that "
                                      "is not valid JSON (or nested too deeply)", "BrokenChannel"),
    "has_an_unprintable_exception": ("repeat-exact", "your loop raised Unprintable: <Unprintable: its message could "
                                                     "not be read>", "CandidateRaised"),
}


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile") / "records.json"
    try:
        cases = {name: (scenario, LIMIT if name in NEVER_RETURN else GUARD) for name, (scenario, _, _) in CASES.items()}
        proc = subprocess.run([sys.executable, "-m", "tests.helpers.hostile_loops", str(out), json.dumps(cases),
                               str(MEMORY_MB)], cwd=HERE.parent, capture_output=True, timeout=600,
                              start_new_session=True)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the grader's process did not end (hung, or held by something a loop left behind): "
                    f"{(exc.stderr or b'')[-2000:].decode(errors='replace')}")
    assert proc.returncode == 0 and out.exists(), \
        f"the grader's process died (exit {proc.returncode}): {proc.stderr[-3000:].decode(errors='replace')}"
    return {"records": json.loads(out.read_text(encoding="utf-8")), "stdout_bytes": len(proc.stdout)}


@pytest.mark.parametrize("name", list(CASES))
def test_a_hostile_loop_gets_a_clear_report(records, name):
    scenario, says, error = CASES[name]
    record = records["records"][name]
    hostile = record["hostile"]
    assert hostile["story"].startswith(f"scenario `{scenario}`: ") and says in hostile["story"], hostile
    assert hostile["error"] == error, hostile
    assert len(hostile["story"]) < 5000, f"{name}: a story of {len(hostile['story']):,} characters"
    if error is None:
        assert hostile["stop_reason"] is not None
    else:
        assert hostile["stop_reason"] is None, f"{name}: a run that failed has no result: {hostile}"
    limit = LIMIT if name in NEVER_RETURN else GUARD
    assert hostile["seconds"] < limit + 60, f"{name}: its report took {hostile['seconds']:.2f} s (a hang guard)"


def test_a_candidate_file_sees_nothing_of_the_script_or_the_expectations(records):
    printed = records["records"]["reads_the_script"]["hostile"]["printed"]
    assert printed.strip() == "FOUND 0 script=0 expect=None rules=0", printed


@pytest.mark.parametrize("name", list(CASES))
def test_nothing_a_hostile_loop_did_reaches_the_next_run(records, name):
    record = records["records"][name]
    assert record["after"] == record["before"], (name, record)
    assert record["before"]["error"] is None, record["before"]


def test_what_a_loop_prints_is_kept_in_part_and_counted(records):
    flood = records["records"]["floods_stdout"]["hostile"]
    assert flood["output_bytes"] == 200 * 1024 * 1024 and flood["output_kept"] == 64 * 1024, flood
    assert records["stdout_bytes"] < 1024 * 1024, "the flood reached the grader's own output"


def test_a_huge_message_is_cut_and_its_length_said(records):
    story = records["records"]["raises_a_huge_message"]["hostile"]["story"]
    assert story.endswith("... (50,000,000 characters in all)"), story[-100:]


# ---------------------------------------------------------------- in this process: loops that behave

from reference import Episode, StopReason, ToolOutcome, find  # noqa: E402
from reference.core.codec import RemoteError, decode, encode  # noqa: E402
from reference.core.errors import ProtocolError  # noqa: E402
from reference.core.messages import AssistantMessage, ToolCall, ToolMessage  # noqa: E402
from reference.loops.guarded import guarded_loop  # noqa: E402
from reference.loops.react import react_loop  # noqa: E402
from reference.sandbox.grading import run_candidate  # noqa: E402
from reference.sandbox.policy import RunPolicy  # noqa: E402
from reference.runs.registry import get_loop  # noqa: E402
from reference.sim.tools import ToolTimeout  # noqa: E402

from tests.helpers import hostile_loops  # noqa: E402


def test_values_cross_the_channel_as_they_were():
    values = [AssistantMessage("hi", (ToolCall("c1", "f", '{"a": '),)), ToolMessage("c1", "{}", is_error=True),
              ToolOutcome(False, error_type="timeout", retryable=True, http_status=504, retry_after=1.5),
              StopReason.TIME_BUDGET, {1: "int key", "__dc__": "a tag as a key"}, (1, [2, (3,)]), float("inf")]
    assert decode(json.loads(json.dumps(encode(values)))) == values
    for exc in (ProtocolError("anthropic", "messages.1: bad", param="x"), ConnectionResetError(104, "reset"),
                ToolTimeout("slow"), KeyError("k")):
        back = decode(json.loads(json.dumps(encode(exc))))
        assert type(back) is type(exc) and back.args == exc.args and vars(back) == vars(exc)
    assert isinstance(decode(encode(hostile_loops.NotAnException("x"))), RemoteError)


@pytest.mark.parametrize("loop_name", ["react", "guarded"])
@pytest.mark.parametrize("name", ["happy-path", "token-blowup", "tool-down", "repeat-exact", "malformed-calls"])
def test_the_sandbox_reports_what_running_in_process_reports(loop_name, name):
    loop = get_loop(loop_name)
    here, there = (run_candidate(loop, name, sandbox=sandbox) for sandbox in (False, True))
    assert there.story() == here.story() and type(there.error) is type(here.error)
    if here.result is not None:
        for field in ("stop_reason", "answer", "messages", "usage", "cost_usd", "sim_seconds", "steps", "detail"):
            assert getattr(there.result, field) == getattr(here.result, field), field
        degraded = [getattr(r.result.degraded, "to_dict", lambda: r.result.degraded)() for r in (here, there)]
        assert degraded[0] == degraded[1]


def test_a_candidate_file_is_run_by_path(tmp_path):
    path = tmp_path / "candidate.py"
    path.write_text("from reference.loops.react import react_loop\n\n"
                    "def mine(episode, max_steps):\n    return react_loop(episode, max_steps)\n", encoding="utf-8")
    assert run_candidate(path, "happy-path").result.stop_reason is StopReason.COMPLETED  # its react_loop
    attempt = run_candidate(f"{path}::mine", "happy-path")
    assert attempt.result.stop_reason is StopReason.COMPLETED and attempt.result.loop == "mine"
    (tmp_path / "empty.py").write_text("x = 1\n", encoding="utf-8")
    story = run_candidate(tmp_path / "empty.py", "happy-path").story()
    assert "your loop raised AttributeError: empty.py defines no function named loop or react_loop" in story


def test_errors_the_grader_raised_come_back_as_themselves():
    attempt = run_candidate(get_loop("react"), "paging-legit", wire="anthropic",
                            probe=lambda episode: len(episode.ledger.steps))
    assert attempt.error is None and attempt.probe == attempt.model_calls

    def forgets(episode, max_steps):
        messages = episode.initial_messages()
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)  # no assistant message
        episode.model.complete(messages, episode.tools.specs)

    attempt = run_candidate(forgets, "paging-legit", wire="anthropic")
    assert isinstance(attempt.error, ProtocolError) and attempt.error.wire == "anthropic", attempt.story()
    assert "request 2 was refused by the API (HTTP 400, anthropic)" in attempt.story()


def test_in_process_the_same_checks_hold_and_the_scenario_cache_is_safe():
    before = find("repeat-exact").model_dump()
    attempt = run_candidate(hostile_loops.mutates_internals, "repeat-exact", sandbox=False)
    assert find("repeat-exact").model_dump() == before, "a loop run in process changed the cached scenario"
    assert run_candidate(hostile_loops.clean, "repeat-exact", sandbox=False).result.model_calls == 8
    assert "rejected" in run_candidate(hostile_loops.forges_completion, "happy-path", sandbox=False).story()
    attempt = run_candidate(hostile_loops.catches_the_runaway, "repeat-exact", sandbox=False)
    assert attempt.result is None and "28 model calls and was still going" in attempt.story()


def test_a_policy_and_its_fields_as_keywords_run_the_same():
    trusted_here = RunPolicy(sandbox="off", runaway_margin=0)
    by_policy = run_candidate(hostile_loops.catches_the_runaway, "repeat-exact", policy=trusted_here)
    by_keywords = run_candidate(hostile_loops.catches_the_runaway, "repeat-exact", sandbox=False, runaway_margin=0)
    assert by_policy.story() == by_keywords.story() and "made 8 model calls" in by_policy.story()
    assert RunPolicy().with_(sandbox=True) == RunPolicy(sandbox="child")
    with pytest.raises(TypeError, match="time_limt"):
        run_candidate(hostile_loops.clean, "repeat-exact", time_limt=2)
    for wrong in ({"sandbox": "fork"}, {"time_limit": 0}, {"memory_mb": -1}):
        with pytest.raises(ValueError):
            RunPolicy(**wrong)
    with pytest.raises(AttributeError):  # frozen: one policy may be shared by every run of a grade
        trusted_here.time_limit = 60  # type: ignore[misc]


def test_the_loop_sees_the_books_keep_up():
    seen = []

    def reads(episode, max_steps):
        messages = episode.initial_messages()
        for _ in range(2):
            turn = episode.model.complete(messages, episode.tools.specs)
            messages.append(turn.message)
            messages.extend(episode.tools.execute(call) for call in turn.tool_calls)
            seen.append((len(episode.ledger.steps), len(episode.ledger.steps[-1].tools), episode.clock.elapsed))
        episode.clock.sleep(5)
        seen.append(episode.clock.elapsed)
        return episode.finish(StopReason.REPEATED_CALL, messages)  # the books show the repeat

    attempt = run_candidate(reads, "repeat-exact", probe=lambda episode: seen)
    books = attempt.episode
    assert attempt.result.model_calls == len(books.ledger.steps) == 2 and attempt.result.sim_seconds == books.clock.elapsed
    assert [s[:2] for s in attempt.probe[:2]] == [(1, 1), (2, 1)], attempt.probe
    assert attempt.probe[1][2] == books.clock.elapsed - 5 and attempt.probe[2] == books.clock.elapsed, attempt.probe
    assert seen == [], "the loop ran in its own process"
