"""A passage the user quoted (reference/parts/guards/quotes.py): between a Markdown code span, ASCII double quotes
or any pair of quotation marks a locale uses (CLDR's delimiters), so a write the user asked for in those words runs
as often as asked whatever the user's language; an apostrophe inside a word is no quotation mark."""
from __future__ import annotations


import pytest

from reference.core.messages import UserMessage
from reference.parts.guards.quotes import quoted
from reference.parts.guards.state import Transcript
from tests.helpers.chat_logs import judged

COMMAND = "pytest tests/test_sync.py -q"


@pytest.mark.parametrize("asked", [
    f'Run "{COMMAND}" a few times.',
    f"Run `{COMMAND}` a few times.",
    f"Lance « {COMMAND} » plusieurs fois.",
    f"Führe „{COMMAND}“ ein paar Mal aus.",
    f"Kör ”{COMMAND}” några gånger.",
    f"「{COMMAND}」を何回か実行して。",
    f"Spusť ‚{COMMAND}‘ několikrát.",
    f"Run ‘{COMMAND}’ a few times.",
])
def test_a_passage_between_any_locales_quotation_marks_is_quoted(asked):
    read = Transcript()
    read.catch_up([UserMessage(asked)])
    assert read.quoted == [COMMAND]


def test_an_apostrophe_quotes_nothing():
    """Inside a word (don’t) or after one (the students’ work), U+2019 is the apostrophe, not a closing mark."""
    read = Transcript()
    read.catch_up([UserMessage("It’s flaky, and I don’t know why: the students’ sync tests and the users’ ones fail.")])
    assert read.quoted == []
    assert quoted("Run ‘make it’s-fine target’ now") == ["make it’s-fine target"]


def test_a_quotation_holds_the_quotes_and_code_inside_it():
    assert quoted('Lance « git commit -m "fix sync" » puis « `make test` ».') == \
        ["make test", 'git commit -m "fix sync"', "`make test`"]


def _judged(tmp_path, user: str):
    """The flaky-test conversation: the command the user quoted run four times, failing once."""
    tool = {"type": "function", "function": {
        "name": "run_tests", "description": "Run a test command in the repo.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False}}}
    steps = [("run_tests", {"command": COMMAND}, out)
             for out in ["1 passed in 0.4s", "1 failed in 0.5s", "1 passed in 0.4s", "1 passed in 0.4s"]]
    return judged(tmp_path, [tool], user, steps, "Failed once in four runs.")


@pytest.mark.parametrize("user", [
    f"Le test est instable. Lance « {COMMAND} » plusieurs fois et dis-moi combien de fois il échoue.",
    f"Der Test ist wackelig. Führe „{COMMAND}“ ein paar Mal aus und sag mir, wie oft er fehlschlägt.",
    f"テストが不安定です。「{COMMAND}」を何回か実行して、失敗回数を教えてください。",
])
def test_a_command_the_user_quoted_in_any_language_is_run_as_the_quoted_one_is(tmp_path, user):
    """The user's own words ask for the runs: judged as the same request with ASCII quotes is, never stopped."""
    english = _judged(tmp_path, f'The test is flaky. Run "{COMMAND}" a few times and tell me how often it fails.')
    judged = _judged(tmp_path, user)
    assert [(c["message"], c["verdict"]) for c in judged.calls] == [(c["message"], c["verdict"]) for c in english.calls]
    assert all(c["verdict"] != "stop" for c in judged.calls)


def test_a_quotation_in_a_script_written_without_spaces_is_a_passage_of_its_words():
    """「订单已发货」 is five words, as UAX #29 breaks ideographs; one word is no passage in any script."""
    read = Transcript()
    read.catch_up([UserMessage("请把「订单已发货」发到群里。Send “hello” too.")])
    assert read.quoted == ["订单已发货"]
