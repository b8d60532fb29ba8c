"""No progress and the things the agent was given: a checklist the user wrote is worked through, even by empty
answers; names the agent made up, each answering empty, are still no progress. And one instant respelled in
another offset is one value."""

import pytest

from reference.core.canonical import call_fingerprint
from reference.core.dates import canonical_moment
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.field_runs import run_field


def test_empty_answers_about_what_the_user_listed_are_progress_and_made_up_names_are_not():
    scenario, result = run_field("repos-the-user-listed-all-empty")
    assert completed(scenario, result) and not interventions(result), interventions(result)
    scenario, result = run_field("repos-the-agent-made-up-all-empty")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "no_progress", (failed, interventions(result))


@pytest.mark.parametrize("spelling", ["2026-12-03T00:00:00-05:00", "2026-12-02T21:00:00-08:00",
                                      "2026-12-03T05:00:00.000Z", "2026-12-03t05:00:00z"])
def test_one_instant_in_any_offset_is_one_moment(spelling):
    assert canonical_moment(spelling) == "2026-12-03T05:00:00Z"


def test_a_local_time_a_date_and_another_instant_keep_their_own_value():
    assert canonical_moment("2026-12-03T00:00:00") is None  # no offset: read in a zone another argument may name
    assert canonical_moment("2026-12-03") is None
    assert canonical_moment("2026-12-03T05:00:00.5Z") == "2026-12-03T05:00:00.5Z"
    a = call_fingerprint("list_events", '{"timeMin": "2026-12-03T00:00:00-05:00"}')
    assert a == call_fingerprint("list_events", '{"timeMin": "2026-12-03T05:00:00Z"}')
    assert a != call_fingerprint("list_events", '{"timeMin": "2026-12-04T00:00:00-05:00"}')
    assert call_fingerprint("list_events", '{"timeMin": "2026-12-03T00:00:00-05:00"}', meaning=False) != a


@pytest.mark.parametrize("loop, legitimate", [
    ("days-past-the-users-day-all-empty", "days-of-the-users-window-all-empty"),
    ("search-reworded-after-its-answer", "parallel-searches-two-rate-limited"),
])
def test_the_days_of_a_window_and_a_batch_sent_together_are_not_loops(loop, legitimate):
    scenario, result = run_field(legitimate)
    assert completed(scenario, result) and not interventions(result), interventions(result)
    scenario, result = run_field(loop)
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == scenario.expect.stop_reason, (failed, interventions(result))


def _guesses(tmp_path, user: str, names: list[str], answer: str):
    from tests.helpers.chat_logs import flags, tool
    read = tool("read_file", "Read a file from the workspace.", path="string")
    return flags(tmp_path, [read], user, [("read_file", {"path": n}, answer.format(n)) for n in names])


def test_the_same_sentence_around_each_made_up_name_is_no_progress(tmp_path):
    """Paths guessed one after another, each answered by one sentence around the path sent: the answers say nothing
    of their subjects, as empty answers do; the guard stops the fourth guess."""
    names = [f"docs/adr/{n}-{s}.md" for n, s in [(365, "truncation"), (366, "tool-output"), (367, "limits"),
                                                 (368, "size-cap"), (369, "result-size")]]
    found = _guesses(tmp_path, "Which ADR decided that tool results are truncated?", names,
                     "read_file: {} does not exist (paths are relative to the workspace root)")
    assert [f[1] for f in found][:2] == ["intervene", "stop"] and found[1][0] == 7, found


def test_the_same_sentence_around_each_name_the_user_listed_is_progress(tmp_path):
    """Four files the user named, each answered alike around its own path: a checklist worked through."""
    names = ["src/a1.py", "src/b2.py", "src/c3.py", "src/d4.py"]
    found = _guesses(tmp_path, "Check that src/a1.py, src/b2.py, src/c3.py and src/d4.py all exist.", names,
                     "read_file: {} exists (paths are relative to the workspace root)")
    assert found == []


def _pinged(tmp_path, user: str, hosts: list[str], listed: bool = False):
    from tests.helpers.chat_logs import flags, tool
    ping = tool("ping_host", "Check a host answers.", {"readOnlyHint": True}, host="string")
    listing = tool("list_hosts", "The fleet's hosts.", {"readOnlyHint": True})
    steps = [("list_hosts", {}, {"hosts": hosts})] if listed else []
    return flags(tmp_path, [ping, listing], user, steps + [("ping_host", {"host": h}, f"{h} is not reachable")
                                                          for h in hosts])


def test_names_the_user_or_a_listing_gave_whole_are_told_apart_though_they_differ_only_in_digits(tmp_path):
    """Hosts db-01 to db-04, each "X is not reachable": each was given as written, so each is its own question."""
    hosts = ["db-01", "db-02", "db-03", "db-04"]
    assert _pinged(tmp_path, "Which of db-01, db-02, db-03, db-04 are down?", hosts) == []
    assert _pinged(tmp_path, "Which database hosts are down?", hosts, listed=True) == []
    assert _pinged(tmp_path, "Which of db-01.prod, db-02.prod, db-03.prod, db-04.prod are down?",
                   [f"{h}.prod" for h in hosts]) == []
    guessed = _pinged(tmp_path, "Is db-01 down?", [*hosts, "db-05"])  # the others were never given
    assert any(v == "stop" for _, v, _ in guessed), guessed


def _office_tools():
    from tests.helpers.chat_logs import tool
    return [tool("office_list_files", "The files the user uploaded."),
            tool("office_read_document", "An uploaded document's text.", file_id="string"),
            tool("office_archive_file", "Archive an uploaded file.", file_id="string")]


def _not_found(file_id: str) -> str:
    return f"错误：未找到 file_id 为 {file_id} 的文件，请先调用 list_files 获取有效的 file_id。"


def test_ids_never_given_each_answered_by_the_same_template_are_no_progress(tmp_path):
    """A tool of unknown effect that names a thing by an id nobody gave (a listed id mistyped anew each time) and gets
    the words its tool answered the last guess with took nothing: the guesses are no progress."""
    from tests.helpers.chat_logs import flags
    listed = "504c90c054644e839868013b27aea169"
    guesses = ["504c90c05c644e83986c80b13b27aea169", "504c90c05c644e839868c013b27aea169",
               "504c90c054644e83986c8013b27aea169", "504c90c05c644e83986813b27aea169", "504c90c0546448e39868013b27aea169"]
    steps = [("office_list_files", {}, {"files": [{"file_id": listed, "name": "report.docx"}]})]
    steps += [("office_read_document", {"file_id": g}, _not_found(g)) for g in guesses]
    found = flags(tmp_path, _office_tools(), "把刚才上传的报告总结成三条要点。", steps)
    assert any(v == "stop" for i, v, _ in found if i <= 10), found


def test_ids_a_listing_gave_each_acknowledged_by_one_template_are_progress(tmp_path):
    """Each id the listing gave, acknowledged by one template, is a thing done: a batch, not guessing."""
    from tests.helpers.chat_logs import flags
    ids = [f"{n:032x}" for n in (0xA1, 0xB2, 0xC3, 0xD4, 0xE5)]
    steps = [("office_list_files", {}, {"files": [{"file_id": i} for i in ids]})]
    steps += [("office_archive_file", {"file_id": i}, f"已归档 file_id 为 {i} 的文件。") for i in ids]
    assert flags(tmp_path, _office_tools(), "把所有文件归档。", steps) == []


def _links(tmp_path, user: str, urls: list[str], flagged: bool) -> list:
    from tests.helpers.chat_logs import flags, tool
    tools = [tool("fetch", "Fetch a URL.", url="string")]
    dead = "HTTP/2 404\ncontent-type: text/html; charset=utf-8\ncontent-length: 1532"
    return flags(tmp_path, tools, user, [("fetch", {"url": u}, dead, True) if flagged else ("fetch", {"url": u}, dead)
                                         for u in urls])


@pytest.mark.parametrize("flagged", [True, False])
def test_a_failure_on_each_link_the_user_listed_is_that_links_answer(tmp_path, flagged):
    """The links the user asked about are a checklist: each one's 404 answers the question asked of it, while links
    the agent made up, each answering 404, are still guesses that bring nothing."""
    urls = ["https://acme.io/docs/install", "https://acme.io/docs/quickstart", "https://acme.io/blog/launch-2024",
            "https://acme.io/pricing/teams", "https://acme.io/careers"]
    assert _links(tmp_path, "Check which of these links are dead: " + " ".join(urls), urls, flagged) == []
    (tmp_path / "guessed").mkdir()
    found = _links(tmp_path / "guessed", "Find our install guide on acme.io.", urls, flagged)
    assert "no_progress" in [r for _, _, r in found], found
