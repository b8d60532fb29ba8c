"""An answer moved by the agent's own act is not the world moving on (repeats.py, `_patient`; own.py, sent_back.py):
a write that took, sent again, meets the world its first run made, and that change earns it no patience; a read
that sends back the number a write answered asks about that write, and is no news that lets it run again. Beside
each, the work it must leave alone: a scroll whose every run loads more, a poll spaced by a wait whose answer the
world moved, a list that misses what the write made."""
from __future__ import annotations

from tests.helpers.chat_logs import flags, tool

_SHELL = [tool("sh", "Runs a command in a shell and returns its output.", command="string")]
_ASK = "Release the stable channel and confirm."
_RELEASE = {"command": "relctl release --channel stable"}
_TOOK = "relctl notice packing 3 files\nrelctl notice uploading to https://releases.example.net/\n+ widget@4.1.0"
_REFUSED = ("relctl notice uploading to https://releases.example.net/\nrelctl refused: version 4.1.0 exists\n"
            "relctl log kept in /home/ci/.relctl/logs/run.log")


def test_a_write_that_took_sent_again_is_told_by_its_second_refusal_and_stopped_by_its_third(tmp_path):
    steps = [("sh", _RELEASE, _TOOK)] + [("sh", _RELEASE, _REFUSED)] * 4
    found = flags(tmp_path, _SHELL, _ASK, steps)
    assert found and found[0][0] == 5, found  # the third run (message 5): the refusal answered alike
    assert (7, "stop", "repeated_call") in found, found  # the fourth


def test_a_call_whose_every_run_moves_its_answer_keeps_its_patience(tmp_path):
    scroll = {"command": "browserctl eval 'scrollBy(0, 9e9); count(.card)'"}
    steps = [("sh", scroll, f"Execution result:\n{n}\n\nConsole output:\n") for n in (20, 40, 60, 80, 97, 97)]
    assert not flags(tmp_path, _SHELL, _ASK, steps)


def test_a_poll_spaced_by_its_own_wait_is_moved_by_the_world_not_by_itself(tmp_path):
    poll = {"command": "sleep 10; ci view 88123045 --json status"}
    answers = ['{"s": "queued"}', '{"s": "in_progress"}', '{"s": "in_progress"}', '{"s": "completed"}']
    assert not flags(tmp_path, _SHELL, _ASK, [("sh", poll, a) for a in answers])


_TICKETS = [tool("create_ticket", "Open a ticket in a project.", {"readOnlyHint": False}, project="string",
                 title="string"),
            tool("get_ticket", "A ticket by its number.", {"readOnlyHint": True}, project="string", number="integer"),
            tool("list_tickets", "The tickets of a project.", {"readOnlyHint": True}, project="string")]
_OPEN = {"project": "depot", "title": "Pick list cuts long SKUs"}


def _opened(n: int) -> dict:
    return {"id": 90417000 + n, "number": n, "title": "Pick list cuts long SKUs", "state": "open"}


def test_a_read_that_sends_back_the_number_a_write_answered_asks_about_that_write_not_the_world(tmp_path):
    steps = []
    for n in (412, 413, 414):
        steps += [("create_ticket", _OPEN, _opened(n)),
                  ("get_ticket", {"project": "depot", "number": n},
                   f"lookup unavailable: quota spent ({n}), resets in 7m")]
    found = flags(tmp_path, _TICKETS, "Open the ticket and confirm it is there.", steps)
    assert found[:2] == [(5, "intervene", "repeated_call"), (9, "stop", "repeated_call")], found


def test_a_list_that_misses_what_the_write_made_is_news_of_the_world(tmp_path):
    steps = [("create_ticket", _OPEN, _opened(412)),
             ("list_tickets", {"project": "depot"}, [{"number": 377, "title": "Label printer offline"}]),
             ("create_ticket", _OPEN, _opened(413))]
    assert not flags(tmp_path, _TICKETS, "Open the ticket and confirm it is there.", steps)


_ROWS = [tool("insert_rows", "Insert documents into a collection.", {"readOnlyHint": False}, collection="string",
              documents="array"),
         tool("count_rows", "Count documents in a collection that match a filter.", {"readOnlyHint": True},
              collection="string", filter="object")]
_EVENT = {"collection": "sessions", "documents": [{"id": "s_8f2c41", "user": "u_1931", "calls": 41}]}


def test_a_read_that_asks_by_a_value_the_write_sent_in_what_it_made_reads_that_write(tmp_path):
    steps = [("insert_rows", _EVENT, "Inserted 1 document(s). Inserted IDs: 6690f1c3a2b4e51d7c0e9a11"),
             ("count_rows", {"collection": "sessions", "filter": {"id": "s_8f2c41"}}, "Found 1 documents"),
             ("insert_rows", _EVENT, "Inserted 1 document(s). Inserted IDs: 6690f1c9a2b4e51d7c0e9a12"),
             ("insert_rows", _EVENT, "Inserted 1 document(s). Inserted IDs: 6690f1d0a2b4e51d7c0e9a13")]
    found = flags(tmp_path, _ROWS, "Record the session s_8f2c41.", steps)
    assert found[:2] == [(5, "intervene", "repeated_call"), (7, "stop", "repeated_call")], found


def test_where_a_write_and_a_read_both_act_is_no_value_the_write_made(tmp_path):
    comments = [tool("add_comment", "Comment on an issue.", {"readOnlyHint": False}, issue_number="integer",
                     body="string"),
                tool("list_comments", "The comments of an issue.", {"readOnlyHint": True}, issue_number="integer")]
    post = {"issue_number": 4120, "body": "Fixed in the 2.4 build."}
    steps = [("add_comment", post, {"id": 99001, "body": "Fixed in the 2.4 build."}),
             ("list_comments", {"issue_number": 4120}, [{"id": 98000, "body": "Still broken on 2.3."}]),
             ("add_comment", post, {"id": 99002, "body": "Fixed in the 2.4 build."})]
    assert not flags(tmp_path, comments, "Tell issue 4120 it is fixed in the 2.4 build.", steps)


_RUNNER = [tool("launch", "Launch a command in the background.", command="string"),
           tool("output_of", "The output of a launched process.", pid="integer")]


def _runs(outputs: list[str]) -> list[tuple]:
    steps: list[tuple] = []
    for i, output in enumerate(outputs):
        pid = 4100 + 7 * i
        steps += [("launch", {"command": "npm run test:e2e"}, {"pid": pid}),
                  ("output_of", {"pid": pid}, {"state": "exited", "output": output})]
    return steps


def test_runs_the_user_counted_each_read_by_its_pid_run_as_often_as_asked(tmp_path):
    ask = "Run the e2e suite 3 times to check it is not flaky."
    assert flags(tmp_path, _RUNNER, ask, _runs(["PASS 42 tests in 3.1s"] * 3)) == []
    found = flags(tmp_path, _RUNNER, ask, _runs(["PASS 42 tests in 3.1s"] * 4))
    assert found and found[0][0] == 13, found  # the fourth run, beyond the count


def test_a_read_of_the_run_that_answers_otherwise_than_the_round_before_is_news(tmp_path):
    ask = "Run the e2e suite twice; if the two runs disagree, run it once more."
    assert flags(tmp_path, _RUNNER, ask, _runs(["42 passed", "41 passed, 1 failed", "42 passed"])) == []
    found = flags(tmp_path, _RUNNER, ask, _runs(["42 passed"] * 3))
    assert found and found[0][0] == 9, found  # the runs agreed: the third is no more than asked


def test_posts_the_user_counted_each_followed_by_a_read_showing_the_post_run_as_often_as_asked(tmp_path):
    tools = [tool("post_message", "Sends a message to a channel.", channel="string", text="string"),
             tool("channel_history", "A channel's latest messages.", {"readOnlyHint": True}, channel="string")]
    text = "INC-2291: payments API 5xx, please ack"
    shown: list[dict] = []
    steps = []
    for i, (who, said) in enumerate([(None, None), ("U07ANN", "deploying the mobile app"), ("U07BOB", "lunch?")]):
        ts = f"1700000{i}00.000100"
        shown = ([{"user": who, "text": said, "ts": f"1700000{i}50.000200"}] if who else []) + shown
        shown = [{"user": "U0BOT", "text": text, "ts": ts}] + shown
        steps += [("post_message", {"channel": "C024BE91L", "text": text}, {"ok": True, "ts": ts}),
                  ("channel_history", {"channel": "C024BE91L"}, {"messages": list(shown)})]
    counted = "Page C024BE91L about INC-2291 with this text; if nobody acks, post it again, at most 3 times: " + text
    assert flags(tmp_path, tools, counted, steps) == []
    uncounted = "Page C024BE91L about INC-2291 with this text; if nobody acks, post it again: " + text
    assert flags(tmp_path, tools, uncounted, steps)[:1] == [(5, "intervene", "repeated_call")]
