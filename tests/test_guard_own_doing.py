"""An answer moved by the agent's own act is not the world moving on (reference/parts/guards/repeats.py, `_patient`):
a write that took, sent again, meets the world its first run made, and that change earns it no patience. Beside
it, the work it must leave alone: a scroll whose every run loads more, a poll spaced by a wait whose answer the
world moved."""
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
