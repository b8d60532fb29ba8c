"""A flagless plain-text result fails when it holds PowerShell error records and nothing else; a record's
`+ CategoryInfo` and `+ FullyQualifiedErrorId` lines (the ErrorRecord's own properties) PowerShell prints untranslated
in every locale (reference/diagnosis/logs/chat.py). A command line refused so in spelling after spelling is the same
failure on argument after argument; the guard needs no canonical form of a command line to see it. Judged in shadow
mode on conversations in the chat-log format, the path `loopkit diagnose` takes."""
from __future__ import annotations

import pytest

from reference.diagnosis.logs.chat import says_error
from tests.helpers.chat_logs import flags, tool as _tool

SHELL = [_tool("PowerShell", "Run a command in Windows PowerShell 5.1.", command="string")]


def _record(command: str, position: str = "In Zeile:1 Zeichen:{}",
            message: str = 'Das Token "&&" ist in dieser Version kein gültiges Anweisungstrennzeichen.') -> str:
    column = command.index("&&") + 1 if "&&" in command else 1
    return (f"Response: {position.format(column)}\n+ {command}\n+ {' ' * (column - 1)}~~\n{message}\n"
            "    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n"
            "    + FullyQualifiedErrorId : InvalidEndOfLine\n \nStatus Code: 1")


@pytest.mark.parametrize("text, failed", [
    (_record("cd C:\\w && npm test"), True),  # German
    (_record("cd C:\\w && npm test", "At line:1 char:{}",
             "The token '&&' is not a valid statement separator in this version."), True),  # English
    ("Get-Item : Cannot find path 'C:\\x' because it does not exist.\nAt line:1 char:1\n+ Get-Item C:\\x\n"
     "+ ~~~~~~~~~~~~~\n    + CategoryInfo          : ObjectNotFound: (C:\\x:String) [Get-Item], ItemNotFoundException\n"
     "    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand", True),
    # output first, then a record: the output reports it (a script that went on, a log read back)
    ("> lager-app@1.0.0 test\n12 passing\n\n" + _record("Remove-Item x && y"), False),
    ("CategoryInfo and FullyQualifiedErrorId are ErrorRecord properties.", False),  # the words, not the form
])
def test_a_flagless_result_fails_when_it_opens_with_a_powershell_error_record(text, failed):
    assert says_error(text) is failed


def test_one_command_line_refused_by_the_parser_in_spelling_after_spelling_is_stopped(tmp_path):
    commands = ["cd C:\\Users\\jonas\\lager-app && npm test", 'cd "C:\\Users\\jonas\\lager-app" && npm test',
                "Set-Location C:\\Users\\jonas\\lager-app && npm test", "cd C:/Users/jonas/lager-app && npm test",
                "cd C:\\Users\\jonas\\lager-app\\ && npm test", "cd ~\\lager-app && npm test"]
    steps = [("PowerShell", {"command": c}, _record(c)) for c in commands]
    found = flags(tmp_path, SHELL, "Bitte die Tests in C:\\Users\\jonas\\lager-app ausführen.", steps)
    assert found and min(i for i, _, _ in found) >= 4, found  # not at the first spelling after the first failure
    assert any(v == "stop" for i, v, _ in found if i <= 10), found  # by the 5th attempt


def test_a_command_refused_by_the_parser_then_rewritten_for_it_is_not_stopped(tmp_path):
    first = "cd C:\\w && npm test"
    steps = [("PowerShell", {"command": first}, _record(first)),
             ("PowerShell", {"command": "cd C:\\w; npm test"}, "> w@1.0.0 test\n12 passing\nStatus Code: 0")]
    assert flags(tmp_path, SHELL, "Run the tests in C:\\w.", steps) == []


def _listed_beside(folder: str) -> str:
    """A non-terminating error on one path of `Get-ChildItem`, then the listing of the other, as PowerShell prints."""
    return (f"Get-ChildItem : Cannot find path 'C:\\w\\{folder}' because it does not exist.\nAt line:1 char:1\n"
            f"+ Get-ChildItem C:\\w\\{folder}, C:\\w\\src\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
            f"    + CategoryInfo          : ObjectNotFound: (C:\\w\\{folder}:String) [Get-ChildItem], "
            "ItemNotFoundException\n"
            "    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetChildItemCommand\n\n"
            f"    Directory: C:\\w\\src\n\nMode   LastWriteTime  Length Name\n-a---  12/2/2026 9:00   812 {folder}.ts\n")


def test_a_result_is_a_failure_when_it_holds_error_records_and_nothing_else():
    """The output beside a non-terminating error's record is the command's answer; records alone are the failure."""
    assert not says_error(_listed_beside("legacy"))
    only = _listed_beside("legacy").split("\n\n")[0]
    assert says_error(only + "\n\n" + only.replace("legacy", "v1"))


def test_folders_listed_beside_a_missing_path_each_are_answers(tmp_path):
    steps = [("PowerShell", {"command": f"Get-ChildItem C:\\w\\{d}, C:\\w\\src"}, _listed_beside(d))
             for d in ["legacy", "v1", "v2", "api"]]
    assert flags(tmp_path, SHELL, "List the sources for each module folder: legacy, v1, v2, api; some may have "
                                  "moved under src.", steps) == []


@pytest.mark.parametrize("text, failed", [
    ("Get-Item: C:\\w\\build.ps1:3\nLine |\n   3 |  Get-Item C:\\w\\x\n     |  ~~~~~~~~~~~~~~~\n"
     "     | Cannot find path 'C:\\w\\x' because it does not exist.", True),
    ("ParserError: C:\\w\\run.ps1:1\nLine |\n   1 |  if ($x {\n     |         ~\n     | Missing closing ')'.\n\n"
     "Status Code: 1", True),
    ("Report\nLine | Count\n1 | 5\n2 | 7", False),  # a table whose column is named Line
])
def test_powershell_7s_concise_view_of_a_script_error_is_a_record(text, failed):
    """PowerShell 7 prints a script's or the parser's error record in ConciseView: `Line |`, then the line, its
    underline and the message each behind a `|`."""
    assert says_error(text) is failed
