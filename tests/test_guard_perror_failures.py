"""A flagless plain-text result fails when its first line is a failed system call as C's `perror` and the POSIX
utilities print it: the caller's words, a colon and a space, then the C library's message for an errno
(reference/diagnosis/logs/chat.py). A command refused so in every spelling is a failure that does not pass, not a
write that took. Judged in shadow mode on conversations in the chat-log format, the path `loopkit diagnose` takes."""
from __future__ import annotations

import errno
import os

import pytest

from reference.diagnosis.logs.chat import says_error
from tests.helpers.chat_logs import flags, tool as _tool

SHELL = [_tool("execute_command", "Execute a shell command in the project terminal and return stdout, stderr and the "
                                  "exit code.", command="string", cwd="string")]
DENIED = f"bash: ./gradlew: {os.strerror(errno.EACCES)}\n[exit code: 126]"


@pytest.mark.parametrize("text, failed", [
    (DENIED, True),
    (f"cat: notes.txt: {os.strerror(errno.ENOENT)}", True),
    (f"mkdir: cannot create directory 'build': {os.strerror(errno.EEXIST)}\n", True),
    (f"{os.strerror(errno.EACCES)} errors: 0", False),  # the words, not the form
    (f"collected 3 items\ntests/test_io.py F\nE   OSError: x: {os.strerror(errno.ENOENT)}\n1 failed", False),  # a report
])
def test_a_flagless_result_fails_when_it_opens_as_perror_prints_a_failed_call(text, failed):
    assert says_error(text) is failed


def test_a_command_refused_by_the_system_in_every_spelling_is_stopped(tmp_path):
    root = "/storage/emulated/0/Projects/App"
    spellings = [{"command": "./gradlew assembleDebug"}, {"command": "./gradlew assembleDebug", "cwd": root},
                 {"command": f"cd {root} && ./gradlew assembleDebug"}]
    steps = [("execute_command", args, DENIED) for args in spellings * 2]
    found = flags(tmp_path, SHELL, "Build a debug APK of this project.", steps)
    assert any(v == "stop" for _, v, _ in found), found
    assert min(i for i, v, _ in found if v == "stop") <= 10, found  # by the 5th attempt


def test_a_build_that_failed_then_passed_after_a_fix_is_not_stopped(tmp_path):
    steps = [("execute_command", {"command": "./gradlew assembleDebug"}, DENIED),
             ("execute_command", {"command": "chmod +x gradlew"}, "[exit code: 0]"),
             ("execute_command", {"command": "./gradlew assembleDebug"}, "BUILD SUCCESSFUL in 41s\n[exit code: 0]")]
    assert flags(tmp_path, SHELL, "Build a debug APK of this project.", steps) == []
