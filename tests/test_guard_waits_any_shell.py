"""A poll the agent spaced by a wait of its own is judged by its answers, whatever shell waits and whatever language
a wait tool answers in (reference/parts/guards/waits.py): each shell's own wait command, read in its own units, and a
call that only spent time, known by its structure. Judged in shadow mode on conversations in the chat-log format."""
from __future__ import annotations

import json

import pytest

from reference.parts.guards.waits import _shell_waits
from tests.helpers.chat_logs import flags, tool

SHELL = [tool("shell", "Run a shell command.", command="string")]
RUN = "gh run view 123 --json status,conclusion"


def _polled(wait: str, states=("in_progress", "in_progress", "in_progress", "completed")) -> list[tuple]:
    return [("shell", {"command": wait + RUN}, json.dumps({"status": s, "conclusion": "success" if s == "completed"
                                                            else ""})) for s in states]


@pytest.mark.parametrize("wait", ["sleep 20; ", "busybox sleep 20; ", "Start-Sleep -Seconds 20; ",
                                  "Start-Sleep 20; ", "timeout /t 20 /nobreak >nul && ",
                                  "python3 -c 'import time; time.sleep(20)'; "])
def test_a_run_polled_behind_any_shells_own_wait_is_judged_by_its_answers(tmp_path, wait):
    user = "Wait for workflow run 123 to finish, then tell me if it passed."
    assert flags(tmp_path, SHELL, user, _polled(wait)) == []


@pytest.mark.parametrize("command", ["{ sleep 20; " + RUN + "; }", "time sleep 20; " + RUN, "( sleep 20; " + RUN + " )",
                                     "nohup sleep 20; " + RUN, "ping -n 21 127.0.0.1 >nul & " + RUN,
                                     "ping -c 21 localhost >/dev/null 2>&1; " + RUN])
def test_a_wait_inside_posix_grouping_or_run_by_time_is_still_the_wait(tmp_path, command):
    """POSIX's grammar starts a command after `{`, `(` and the reserved words that open a list, and `time` or `nohup`
    run the utility they are given; a ping of the loopback address, its requests a second apart, is cmd's wait."""
    user = "Wait for workflow run 123 to finish, then tell me if it passed."
    polled = [("shell", {"command": command}, c) for _, _, c in _polled("")]
    assert flags(tmp_path, SHELL, user, polled) == []


@pytest.mark.parametrize("text, seconds", [
    ("until gh run view 1; do sleep 5; done", 5), ("while true; do sleep 5; make; done", 5),
    ("if sleep 3; then ls; fi", 3), ("ping 127.0.0.1 -n 6 > nul && ls", 5)])
def test_posix_reserved_words_open_a_command_where_a_wait_may_stand(text, seconds):
    assert _shell_waits(text) == [(seconds, True)]


@pytest.mark.parametrize("text", ["ping -n 4 8.8.8.8; ls", "ping -c 3 example.com", "echo time sleep 20; ls"])
def test_a_ping_of_another_host_is_a_question_not_a_wait(text):
    assert _shell_waits(text) == []


@pytest.mark.parametrize("wait", ["", "timeout 20 ", "echo sleep 20; "])  # GNU timeout limits a command; echo prints
def test_a_run_polled_at_once_answering_alike_is_still_stopped(tmp_path, wait):
    found = flags(tmp_path, SHELL, "Tell me if workflow run 123 passed.",
                  _polled(wait, ("in_progress",) * 5))
    assert ("stop", "repeated_call") in [(v, r) for _, v, r in found], found


@pytest.mark.parametrize("text, seconds, goes_on", [
    ("sleep 2m; curl -I https://x", 120, True), ("sleep 1.5h && make", 5400, True), ("sleep 30", 30, False),
    ("Start-Sleep -Milliseconds 500; Get-Job", 0.5, True), ("start-sleep -m 1500; Get-Job", 1.5, True),
    ("Start-Sleep -Seconds 20", 20, False), ("timeout /T 90 /NOBREAK > NUL & curl x", 90, True),
    ("python -c \"import time; time.sleep(2.5)\" && ls", 2.5, True), ("bash -c 'sleep 10; ls'", 10, True)])
def test_each_shells_wait_is_read_in_its_own_units(text, seconds, goes_on):
    assert _shell_waits(text) == [(seconds, goes_on)]


@pytest.mark.parametrize("text", ["timeout 20 curl https://x", "echo 'sleep 20 seconds'", "sleep", "sleepy 20; x"])
def test_what_is_no_wait_command_is_read_as_none(text):
    assert _shell_waits(text) == []


BUSY = "HTTP/2 503 \nretry-after: 90\ncontent-type: text/html\n\n<h1>Backend is unhealthy</h1>\n"
CURL = "curl -sS -i https://pypi.org/pypi/numpy/json"


@pytest.mark.parametrize("wait", ["sleep 2m && ", "sleep 90; ", "Start-Sleep -Seconds 120; "])
def test_a_retry_after_waited_out_in_the_shells_own_units_is_the_retry_the_server_asked_for(tmp_path, wait):
    steps = [("shell", {"command": CURL}, BUSY)] + [("shell", {"command": wait + CURL}, BUSY)] * 3
    done = 'HTTP/2 200 \ncontent-type: application/json\n\n"version": "2.3.5"'
    steps.append(("shell", {"command": wait + CURL}, done))
    assert flags(tmp_path, SHELL, "Get the latest numpy version from PyPI; it is having an outage, be patient.",
                 steps) == []


def test_a_retry_after_not_waited_out_keeps_the_budget_of_a_failure_that_said_nothing_of_when(tmp_path):
    """A Retry-After only widens the budget: not waited out, the refusal is judged as the same 503 without it."""
    def sent(busy: str, where: str) -> list:
        steps = [("shell", {"command": CURL}, busy)] + [("shell", {"command": "sleep 2 && " + CURL}, busy)] * 5
        (tmp_path / where).mkdir()
        return flags(tmp_path / where, SHELL, "Get the latest numpy version from PyPI.", steps)
    found = sent(BUSY, "told")
    assert found == sent(BUSY.replace("retry-after: 90\n", ""), "plain")
    assert ("stop", "repeated_call") in [(v, r) for _, v, r in found], found


JOBS = [tool("get_job", "Get the state of a batch job.", job_id="string"),
        tool("wait", "Pause before the next step.", seconds="integer")]


@pytest.mark.parametrize("said", ["Waited 30 seconds.", "Slept 30 s.", "Se esperó 30 segundos.",
                                  "30 Sekunden gewartet.", "已等待 30 秒。", "ok"])
def test_a_job_polled_between_waits_is_judged_by_its_answers_in_any_language(tmp_path, said):
    steps = []
    for state in ["running", "running", "running", "succeeded"]:
        finished = None if state == "running" else "2026-12-02T10:00:00Z"
        steps.append(("get_job", {"job_id": "j-81"}, {"job_id": "j-81", "state": state, "finished_at": finished}))
        if state == "running":
            steps.append(("wait", {"seconds": 30}, said))
    assert flags(tmp_path, JOBS, "Tell me when job j-81 finishes.", steps) == []


def test_two_reads_taking_turns_answering_alike_are_still_stopped(tmp_path):
    reads = [tool("get_status", "Get the status of a service.", service="string"),
             tool("get_order", "Get an order.", order="integer")]
    steps = [step for _ in range(5) for step in (("get_status", {"service": "api"}, "degraded"),
                                                 ("get_order", {"order": 123}, "Order 123 shipped."))]
    found = flags(tmp_path, reads, "Is my order affected by the API incident?", steps)
    assert [v for _, v, _ in found][:2] == ["intervene", "stop"] and found[1][0] <= 9, found


@pytest.mark.parametrize("said", ["Paused for 1500 ms.", "Pausa de 1500 milisegundos.", "1500 Millisekunden pausiert.",
                                  "ok"])
def test_a_build_never_moving_between_pauses_is_stopped_alike_in_any_language(tmp_path, said):
    tools = [tool("pause", "Pause before the next step.", ms="integer"),
             tool("build_status", "Where a preview build stands.", branch="string")]
    steps = [step for _ in range(7) for step in (("build_status", {"branch": "feat-login"}, "building"),
                                                 ("pause", {"ms": 1500}, said))]
    found = flags(tmp_path, tools, "Deploy the preview for feat-login; send me the link once it is ready.", steps)
    assert found[:2] == [(17, "intervene", "same_result"), (21, "stop", "repeated_call")], found


SHELL_MCP = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
SERVICE = "Start-Sleep -Seconds 10; Get-Service -Name Spooler | Format-Table Status,Name"


def _service(states) -> list[tuple]:
    restart = ("shell", {"command": "Restart-Service -Name Spooler -Force -NoWait"}, "Status Code: 0")
    return [restart] + [("shell", {"command": SERVICE}, f"Status  Name\n------  ----\n{s}  Spooler\n\nStatus Code: 0")
                        for s in states]


@pytest.mark.parametrize("annotations", [None, SHELL_MCP])
def test_a_poll_behind_its_own_wait_answering_alike_once_is_waiting_whatever_the_shell_declares(tmp_path,
                                                                                               annotations):
    """The annotations say what any call of the shell may do; the wait before this one says it is sent to see
    whether something moved: a plain-text state read twice alike, ten seconds apart, right after the restart it
    checks (an act takes time to take effect), before it moves, is a poll."""
    shell = [tool("shell", "Run a PowerShell command.", annotations, command="string")]
    steps = _service(["StartPending", "StartPending", "Running"])
    assert flags(tmp_path, shell, "Restart the print spooler and check it is running again.", steps) == []


@pytest.mark.parametrize("annotations", [None, SHELL_MCP])
def test_a_poll_behind_its_own_wait_that_never_moves_is_still_stopped(tmp_path, annotations):
    shell = [tool("shell", "Run a PowerShell command.", annotations, command="string")]
    found = flags(tmp_path, shell, "Restart the print spooler and check it is running again.",
                  _service(["StartPending"] * 6))
    assert ("stop", "repeated_call") in [(v, r) for _, v, r in found] and found[0][0] <= 8, found


def test_a_poll_behind_its_own_wait_with_no_act_before_it_is_warned_at_its_second_call(tmp_path):
    """Nothing the agent did is on its way: the first answer alike is the repeat, as before."""
    shell = [tool("shell", "Run a PowerShell command.", SHELL_MCP, command="string")]
    found = flags(tmp_path, shell, "Is the print spooler running?", _service(["Stopped"] * 5)[1:])
    assert found and found[0][:2] == (3, "intervene"), found  # the second call, at its first answer alike


def test_a_search_that_prints_nothing_found_nothing_and_is_no_wait(tmp_path):
    """A command that asks for something and prints nothing answered "none found": taking turns with a count of the
    same log, both answering alike, the two are a cycle, stopped by its third round; a `sleep` between the same
    counts, as an argv or beside a description, still only waits."""
    count = ("shell", {"command": "grep -c ERROR /var/log/app/backup.log"}, "0\n")
    search = ("shell", {"command": "grep WARN /var/log/app/backup.log | tail -n 20"}, "")
    user = "Did last night's backup log any failures?"
    stops = [f for f in flags(tmp_path, SHELL, user, [count, search] * 4) if f[1] == "stop"]
    assert stops and stops[0][0] <= 11, stops
    for wait in ({"command": ["sleep", "30"]}, {"command": "sleep 30", "description": "Wait 30 seconds"}):
        polled = [("shell", {"command": RUN}, json.dumps({"status": s})) for s in ("queued", "in_progress", "done")]
        steps = [polled[0], ("shell", wait, ""), polled[1], ("shell", wait, ""), polled[2]]
        assert flags(tmp_path, SHELL, "Wait for run 123 to finish.", steps) == []
