"""One canonical form for file paths: a Windows path by its form (a drive, a share, backslashes) read as Win32 reads
it, a relative one resolved against the workspace the conversation states; and what stays as written (POSIX case,
regexes, escapes, command lines)."""
from __future__ import annotations

import json

import pytest

from reference.core.canonical import call_fingerprint, canonical_arguments
from reference.core.paths import canonical_path, stated_directory
from reference.diagnosis.logs import read_log
from reference.diagnosis.shadow import judge

WORKSPACE = "c:\\users\\tj\\src\\ledger-ui"
FILE = WORKSPACE + "\\src\\components\\summary.tsx"
SPELLINGS = ["C:\\Users\\tj\\src\\ledger-ui\\src\\components\\Summary.tsx", "src\\components\\Summary.tsx",
             "C:/Users/tj/src/ledger-ui/src/components/Summary.tsx", ".\\src\\components\\Summary.tsx",
             "C:\\\\Users\\\\tj\\\\src\\\\ledger-ui\\\\src\\\\components\\\\Summary.tsx",
             "c:\\users\\TJ\\src\\ledger-ui\\src\\.\\lib\\..\\components\\SUMMARY.TSX"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_windows_path_in_any_spelling_is_one_file_in_the_workspace_the_conversation_states(spelling):
    assert canonical_path(spelling, WORKSPACE) == FILE


def test_a_relative_path_of_posix_form_keeps_posix_rules_in_a_windows_workspace():
    assert canonical_path("./src/components/Summary.tsx", WORKSPACE) == "src/components/Summary.tsx"
    assert canonical_path("./src/A.ts", WORKSPACE) != canonical_path("./src/a.ts", WORKSPACE)


def test_an_absolute_windows_path_is_one_spelling_without_a_workspace():
    assert canonical_path("C:/Users/TJ//a/./b.txt") == canonical_path("c:\\users\\tj\\a\\b.txt") \
        == "c:\\users\\tj\\a\\b.txt"
    assert canonical_path("\\\\Server\\Share\\Dir\\..\\x.txt") == "\\\\server\\share\\x.txt"


@pytest.mark.parametrize("text", [
    "/srv/A.txt",  # POSIX: names differing in case are two files
    "\\bword\\b", "\\d+\\.\\d+", "a\\b", "a\\\\b",  # a regex, an escape, a regex's backslash
    '{"path": "C:\\\\x"}', "caf\\u00e9 \\n",  # JSON-escaped text
    "rg \"a\\bfoo\" src", "C:\\Python\\python.exe -m pytest tests\\A.py",  # command lines: text with a space
    "owner/repo", "https://x.org/A/B"])
def test_what_is_not_a_windows_path_stays_as_written(text):
    assert canonical_path(text, WORKSPACE) in (text, "/srv/A.txt")
    assert canonical_path("/srv/A.txt") != canonical_path("/srv/a.txt")


def test_a_relative_backslash_path_keeps_its_case_without_a_workspace():
    assert canonical_path("a\\Bc") != canonical_path("a\\bc")  # a regex's \B is not its \b


@pytest.mark.parametrize("text, directory", [
    ("OS: Windows 10.0.26200. Workspace: C:\\Users\\tj\\src\\ledger-ui", WORKSPACE),
    ("Repo at C:\\w. Open C:\\w\\src\\a.ts.", "c:\\w"),  # a workspace and a file in it
    ("Copy C:\\a\\x.txt to D:\\b\\", None),  # two unrelated places: no workspace
    ("cwd: /home/u/p", None)])
def test_the_stated_workspace_is_the_windows_directory_every_stated_path_lies_under(text, directory):
    assert stated_directory(text) == directory


def test_the_fingerprint_resolves_against_the_workspace_only_when_given_one():
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    assert canonical_arguments({"path": SPELLINGS[1]}, schema, base=WORKSPACE) == {"path": FILE}
    assert call_fingerprint("read_file", json.dumps({"path": SPELLINGS[1]}), schema) != \
        call_fingerprint("read_file", json.dumps({"path": SPELLINGS[0]}), schema)


def _conversation(tmp_path, system: str, paths: list[str], contents: list[str]):
    tools = [{"type": "function", "function": {"name": "read_file", "description": "Read a text file.",
                                               "parameters": {"type": "object",
                                                              "properties": {"path": {"type": "string"}}}}}]
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "Why is the total NaN?"}]
    for i, (path, content) in enumerate(zip(paths, contents)):
        messages += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                      "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}]},
                     {"role": "tool", "tool_call_id": f"c{i}", "content": content}]
    messages.append({"role": "assistant", "content": "Done."})
    log = tmp_path / "conversation.json"
    log.write_text(json.dumps({"id": "x", "tools": tools, "messages": messages}), encoding="utf-8")
    (conversation,) = list(read_log(log))
    return [(c["message"], c["verdict"], c["rule"]) for c in judge(conversation).calls if c["verdict"] != "run"]


def test_one_file_read_under_seven_spellings_is_one_repeated_call(tmp_path):
    flagged = _conversation(tmp_path, f"OS: Windows. Workspace: {SPELLINGS[0][:-27]}", SPELLINGS[:6],
                            ["const total = entries.reduce(f, undefined);"] * 6)
    assert flagged and flagged[0][0] <= 6 and flagged[0][2] == "repeated_call", flagged
    assert any(verdict == "stop" for message, verdict, _ in flagged if message <= 10), flagged


def test_posix_files_differing_only_in_case_are_read_each_once(tmp_path):
    paths = ["/data/Report.csv", "/data/report.csv", "/data/REPORT.csv", "/data/RePort.csv"]
    assert _conversation(tmp_path, "Workspace: /data", paths, [f"rows: {i}" for i in range(4)]) == []


def test_a_windows_path_folds_case_one_character_for_one_as_ntfs_compares_names():
    """NTFS's $UpCase table maps each character to one: `ß` and `ss`, `ﬁ` and `fi` are two names, `É` and `é` one."""
    assert canonical_path("C:\\w\\Straße.txt") != canonical_path("C:\\w\\Strasse.txt")
    assert canonical_path("C:\\w\\ﬁle.txt") != canonical_path("C:\\w\\file.txt")
    assert canonical_path("C:\\w\\RÉSUMÉ.docx") == canonical_path("c:\\w\\résumé.docx")
