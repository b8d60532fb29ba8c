"""Duplicate writes judged by their answers (reference/parts/guards/own.py): an answer new only by what the call
minted is the same acknowledgement, a read of the write's own effect is no news for it, and the other items of
a batch answer for that batch; each with the legitimate work it must leave alone."""
from __future__ import annotations


import pytest

from reference.core.messages import ToolCall
from reference.parts.guards.counts import asked_for
from reference.parts.guards.effects import ToolInfo
from reference.parts.guards.own import minted_apart, same_acknowledgement
from reference.parts.guards.state import GuardedCall, Memory
from reference.parts.guards.thresholds import Thresholds
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.chat_logs import flags, tool
from tests.helpers.field_runs import run_field


@pytest.mark.parametrize("loop, legitimate", [
    ("certificate-sent-again-new-id", "jobs-created-three-times-as-asked"),
    ("insert-again-after-reading-its-total", "insert-again-after-user-reports-second-wire"),
    ("batch-sent-again-whole-after-one-timeout", "batch-item-that-timed-out-sent-again"),
    ("reply-posted-again-text-id", "reply-posted-again-after-list-misses-it"),
    ("job-created-again-after-reading-its-log", "jobs-created-three-times-as-asked-listed-between"),
    ("comment-posted-again-after-view-shows-it", "comment-posted-again-after-view-misses-it"),
    ("insert-again-after-reading-its-total", "remaining-count-read-after-each-batch"),
])
def test_a_duplicate_write_is_caught_and_the_work_beside_it_is_left_alone(loop, legitimate):
    scenario, result = run_field(loop)
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "repeated_call", (failed, interventions(result))
    scenario, result = run_field(legitimate)
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_an_answer_new_only_by_what_the_call_minted_is_the_same_acknowledgement():
    sent = "Email sent successfully! {\"id\":\"4ef9a417-02e9-4d39-ad75-9611e0fcc33c\"}"
    again = "Email sent successfully! {\"id\":\"b3d1c0e2-7a44-4f0e-9c2b-61a1f0d5e8aa\"}"
    assert minted_apart(sent, again)
    assert minted_apart("Certificate certificate_3221322 added", "Certificate certificate_3221323 added")
    assert minted_apart("Comment created successfully: {'id': 31877140021, 'public': True}",
                        "Comment created successfully: {'id': 31877152210, 'public': True}")  # a repr, not JSON
    assert minted_apart([{"id": 48213, "created_at": "2026-12-02T03:21:07.412Z"}],
                        [{"id": 48214, "created_at": "2026-12-02T03:21:19.088Z"}])


@pytest.mark.parametrize("was, is_", [
    ("step 400 loss 0.23", "step 500 loss 0.19"),  # a count and a measure moved: news
    ("3 rows: ada, bob, cy", "3 rows: dee, eve, flo"),  # the next rows a "Load more" brought
    ("Email sent successfully!", "Email sent successfully!"),  # nothing minted: the same answer, another rule's
    ({"balance": 10}, {"balance": 20}),  # a total moved, not named as an id
    ("Comment 12 of 40 posted", "Comment 13 of 40 posted"),  # a count in text, not labelled as an id
    # the tip the last answer showed is where this one starts: the world moved on from what was seen
    ("8a1d2c4..f02b7e9  main -> origin/main\nRebased.", "f02b7e9..61ac0d3  main -> origin/main\nRebased."),
    # a measure moved, its unit written after it (ISO 80000-1): a round trip timed again, nothing named
    ("Reply from 10.0.0.7: bytes=32 time=3ms TTL=64", "Reply from 10.0.0.7: bytes=32 time=4ms TTL=64"),
])
def test_what_the_world_showed_is_not_minted(was, is_):
    assert not minted_apart(was, is_)


def test_a_name_that_changed_beyond_its_numerals_is_still_minted():
    assert minted_apart("job.batch/loadtest-9mdqw created", "job.batch/loadtest-7xk2p created")
    assert minted_apart("Created pod 4mdqw", "Created pod 8xk2p")


def test_a_host_pinged_again_between_waits_is_measured_again(tmp_path):
    shell = tool("run_cmd", "Run a command in cmd.exe and return the console output.", command="string")
    ping = "Reply from 10.0.0.7: bytes=32 time={}ms TTL=64\n\nPackets: Sent = 1, Received = 1, Lost = 0"
    steps = [step for t in (3, 4, 9) for step in (("run_cmd", {"command": "ping -n 1 10.0.0.7"}, ping.format(t)),
                                                 ("run_cmd", {"command": "timeout /t 10 /nobreak >nul"}, ""))]
    assert flags(tmp_path, [shell], "Ping the printer at 10.0.0.7 now and then and tell me if it drops.",
                 steps[:-1]) == []


def test_the_user_asks_for_a_count_in_words():
    assert asked_for("Kick off three runs, so just create it three times.") == 3
    assert asked_for("Run it 4 times.") == 4
    assert asked_for("My flight HAT045 on May 14 was cancelled. Send the compensation.") == 1


def test_a_value_a_later_call_sent_back_is_minted_whatever_it_is_labelled():
    """A message's `ts`, an issue's `number`: no name says id, but the next call named the thing by it."""
    was, is_ = "Message posted: {'ts': '1712345678.123456'}", "Message posted: {'ts': '1712345679.223456'}"
    assert not minted_apart(was, is_)
    assert minted_apart(was, is_, frozenset({"1712345678.123456"}))
    assert minted_apart({"number": 4242, "state": "open"}, {"number": 4243, "state": "open"}, frozenset({"4242"}))
    assert minted_apart({"@id": "urn:x:issue:4242"}, {"@id": "urn:x:issue:4243"})  # JSON-LD's identifier


def test_a_number_another_tool_takes_is_minted_whatever_its_member_is_called():
    """An issue's `number`, moved across two identical calls, is what the call made where a comment tool takes it as
    its `issue_number`; with no tool taking it, it is a number that moved: news."""
    def alike_but_minted(*tools: ToolInfo) -> bool:
        m = Memory(tools={t.name: t for t in tools}, thresholds=Thresholds())
        args = {"repo": "acme/web", "title": "Save button does nothing"}
        calls = [GuardedCall(step=i + 1, call=ToolCall(f"c{i}", "issues"), action="issues", index=i, arguments=args,
                             ran=True, writes=True, content={"number": n, "state": "open"})
                 for i, n in enumerate((4242, 4243))]
        m.attempts, m.by_action = calls, {"issues": calls}
        return same_acknowledgement(calls[0], calls[1], m)

    issues = ToolInfo("issues", {"type": "object", "properties": {"repo": {}, "title": {}}})
    comment = ToolInfo("add_issue_comment", {"type": "object", "properties": {
        "issue_number": {"type": "integer"}, "body": {"type": "string"}}})
    assert alike_but_minted(issues, comment)
    assert not alike_but_minted(issues)


def _judged(tmp_path, user: str, tools: list[dict], steps: list[tuple[str, dict, object]]) -> list[tuple[int, str]]:
    """A chat log of `steps` (tool, arguments, answer), judged in shadow mode: the calls flagged and their rules."""
    return [(message, rule) for message, _, rule in flags(tmp_path, tools, user, steps)]


POST = tool("post_message", "Post a message to a channel.", channel="string", text="string")
GET = tool("get_message", "Get a message.", {"readOnlyHint": True}, channel="string", message="string")


@pytest.mark.parametrize("label", ["id", "ts", "number"])
def test_a_message_posted_again_after_reading_it_back_by_what_its_answer_gave_is_a_duplicate(tmp_path, label):
    steps = []
    for ts in ("1712345678.123456", "1712345679.223456", "1712345680.323456"):
        steps.append(("post_message", {"channel": "C0123", "text": "Deploy 2.4.1 finished"},
                      f"Message posted: {{'{label}': '{ts}', 'channel': 'C0123'}}"))
        steps.append(("get_message", {"channel": "C0123", "message": ts}, {"text": "Deploy 2.4.1 finished", label: ts}))
    flagged = _judged(tmp_path, "Tell #deploys that deploy 2.4.1 finished.", [POST, GET], steps)
    assert flagged[:1] == [(5, "repeated_call")]


def test_a_total_read_from_by_the_next_call_is_not_minted(tmp_path):
    """Rows loaded batch by batch, each read from the total the load answered: the reads show new rows."""
    load = tool("load_more", "Load the next batch of rows into the workspace.", table="string")
    read = tool("read_rows", "Read rows of the workspace from an offset.", {"readOnlyHint": True}, offset="integer")
    steps = []
    for total in (250, 500, 750, 1000):
        steps.append(("load_more", {"table": "orders"}, f"Loaded batch: {{'loaded': 250, 'total': {total}}}"))
        steps.append(("read_rows", {"offset": total}, [{"order": f"W{total + k}", "amount": 10 + k} for k in range(3)]))
    user = "Load the orders table and summarise the new rows as they come."
    assert _judged(tmp_path, user, [load, read], steps) == []


def test_a_sync_that_brings_the_world_on_from_where_the_last_one_left_it_runs_again(tmp_path):
    """A push refused because others pushed, a rebase that brings their commits, twice: the second rebase's range
    starts at the tip the first one brought, so it is the world moving on, not an acknowledgement sent again."""
    shell = tool("Bash", "Executes a given bash command in a persistent shell session.", command="string")
    refused = ("! [rejected]  b -> b (fetch first)\nerror: failed to push some refs\nhint: Updates were rejected "
               "because the remote contains work that you do\nhint: not have locally.")
    pull = {"command": "git pull --rebase origin b"}
    steps = [("Bash", {"command": "git push origin b"}, refused),
             ("Bash", pull, " * branch b -> FETCH_HEAD\n   8a1d2c4..f02b7e9  b -> origin/b\nSuccessfully rebased."),
             ("Bash", {"command": "git push origin b"}, refused),
             ("Bash", pull, " * branch b -> FETCH_HEAD\n   f02b7e9..61ac0d3  b -> origin/b\nSuccessfully rebased."),
             ("Bash", {"command": "git push origin b"}, "   61ac0d3..b7d40e2  b -> b")]
    assert flags(tmp_path, [shell], "Push the branch b.", steps) == []


def test_a_write_that_declares_nothing_runs_again_after_a_read_showed_its_world_anew(tmp_path):
    """A write of a tool that declares nothing, whose answer made nothing, sets the state of what it names: a read
    since that names that thing and shows something new lets it run once more (a light still on after the
    switch-off said done); the same read answered alike after it, the next is the repeat. A record added again
    after a read of its trend, its answer a new record id, stays a duplicate."""
    tools = [tool("switch_off", "Switches off the devices of an area.", area="string"),
             tool("live_state", "Get the current state of every device.")]
    off = ("switch_off", {"area": "Hall"}, {"response_type": "action_done", "success": [{"name": "Hall"}]})
    still_on = ("live_state", {}, {"result": "- names: Hall lamp\n  state: 'on'\n  areas: Hall"})
    user = "Switch off the lights in the hall."
    assert flags(tmp_path, tools, user, [off, still_on, off]) == []
    assert flags(tmp_path, tools, user, [off, still_on, off, still_on, off])[:1] == [(9, "intervene", "repeated_call")]
    record = tool("record_reading", "Record a reading. Each call adds a record.", metric="string", value="number")
    trend = tool("get_trend", "Get the trend of the user's readings.", metric="string")
    added = ("record_reading", {"metric": "weight", "value": 72.5}, {"success": True, "record_id": "w_101"})
    read = ("get_trend", {"metric": "weight"}, {"metric": "weight", "average": 72.9, "readings": 6})
    assert flags(tmp_path, [record, trend], "Log my weight, 72.5 kg.", [added, read, added])[:1] \
        == [(5, "intervene", "repeated_call")]
