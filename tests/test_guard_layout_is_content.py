"""A value that spans lines keeps its layout in the canonical form (reference/core/canonical.py): its line breaks
and indentation are content (Python and YAML read indentation as structure, an edit's text must match the file's),
so a text resent with a tab where it had spaces is another request; a one-line value's runs of whitespace are still
one space. Judged in shadow mode on conversations in the chat-log format, the path `loopkit diagnose` takes."""
from __future__ import annotations

from reference.core.canonical import canonical
from tests.helpers.chat_logs import flags, tool as _tool

EDIT = [_tool("read_file", "Read a file. Output is prefixed with line numbers.", path="string"),
        _tool("edit_file", "Replace old_string with new_string in a file. old_string must match the file exactly "
                           "once.", path="string", old_string="string", new_string="string"),
        _tool("run_command", "Run a command in the workspace shell.", command="string")]
BODY = "def total(v):\n{}return round(v, 2)\n"
MISS = "old_string not found in money.py"


def _edit(indent: str, old: str = "round(v, 2)", new: str = "round(v + 1e-9, 2)") -> dict:
    return {"path": "money.py", "old_string": BODY.format(indent), "new_string": BODY.format(indent).replace(old, new)}


def test_an_edit_resent_with_a_tab_for_spaces_is_another_edit(tmp_path):
    steps = [("read_file", {"path": "money.py"}, "1\tdef total(v):\n2\t    return round(v, 2)"),
             ("edit_file", _edit("    "), MISS),
             ("edit_file", _edit("\t"), MISS),
             ("run_command", {"command": "od -c money.py | head -3"}, "0000000 d e f   t o t a l ( v ) : \\r \\n"),
             ("edit_file", {**_edit("\t"), "old_string": "round(v, 2)\r\n", "new_string": "round(v+1e-9, 2)\r\n"},
              "Edited money.py (1 replacement)"),
             ("run_command", {"command": "pytest -q"}, "3 passed in 0.12s")]
    assert flags(tmp_path, EDIT, "Totals round 1.005 down: fix money.py.", steps) == []


def test_the_same_text_edit_sent_again_as_written_is_still_the_repeat(tmp_path):
    steps = [("edit_file", _edit("    "), MISS) for _ in range(5)]
    found = flags(tmp_path, EDIT, "Totals round 1.005 down: fix money.py.", steps)
    assert ("stop", "repeated_call") in [(v, r) for _, v, r in found], found


def test_layout_is_kept_in_a_text_of_lines_and_collapsed_in_one_line():
    assert canonical({"s": "  a\n\tb  "}) == {"s": "a\n\tb"}
    assert canonical({"s": "a\n    b"}) != canonical({"s": "a\n\tb"})
    assert canonical({"s": "./gradlew  assembleDebug "}) == canonical({"s": "./gradlew assembleDebug"})
