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
