"""The round rule (reference/parts/guards/rounds.py): a round of calls that repeats the round before word for word, but
for the ids each round's own answers minted and its later calls named, is one loop. Judged in shadow mode on
conversations in the chat-log format, the path `loopkit diagnose` takes."""
from __future__ import annotations

from tests.helpers.chat_logs import flags, tool

TOOLS = [tool("start_process", "Start a command in a new shell session.", command="string"),
         tool("read_process_output", "The output of a started process.", pid="number"),
         tool("force_terminate", "End a started process.", pid="number")]
USER = "C:\\dev\\shop-front で開発サーバーを起動して、http://localhost:3000 が表示できるか確認してください。"
FAILED = "Error: listen EADDRINUSE: address already in use :::3000"


def _round(pid: int, output: str = FAILED, state: str = "has finished execution") -> list[tuple]:
    return [("start_process", {"command": "cd C:\\dev\\shop-front; npm run dev"},
             f"Process started with PID {pid}\nInitial output:\n> next dev -p 3000\n{output}"),
            ("read_process_output", {"pid": pid}, f"Process {pid} {state}\n\n{output}"),
            ("force_terminate", {"pid": pid}, f"No active session found for PID {pid}")]


def test_a_start_read_kill_round_repeated_with_only_its_new_pid_is_one_loop(tmp_path):
    steps = [s for pid in (41872, 42310, 42964, 43528) for s in _round(pid)]
    found = flags(tmp_path, TOOLS, USER, steps)
    # (messages: the user's at 0, then a call and its answer each) not stopped before the 2nd round ends, stopped by
    # the 3rd's; the start sent again after its first process was read may be warned earlier (a write read back)
    stops = [(i, rule) for i, v, rule in found if v == "stop"]
    assert stops and stops[0][0] >= 11 and stops[0][1] == "alternation", found
    assert any(v == "stop" for i, v, _ in found if i <= 17), found


def test_a_round_whose_answers_moved_is_not_one_loop(tmp_path):
    steps = [*_round(41872), *_round(42310, "ready on http://localhost:3000", "is running")]
    assert flags(tmp_path, TOOLS, USER, steps) == []


def test_a_round_over_ids_a_listing_gave_is_work_through_the_list(tmp_path):
    tools = [tool("list_jobs", "The queued jobs."), tool("claim_job", "Claim a job.", job_id="string"),
             tool("finish_job", "Mark a claimed job done.", job_id="string")]
    ids = ["j7a1c9", "j7b2d0", "j7c3e1"]
    steps = [("list_jobs", {}, {"jobs": [{"id": i} for i in ids]})]
    for i in ids:
        steps += [("claim_job", {"job_id": i}, f"Claimed {i}."), ("finish_job", {"job_id": i}, f"Finished {i}.")]
    assert flags(tmp_path, tools, "Work through the queue.", steps) == []
