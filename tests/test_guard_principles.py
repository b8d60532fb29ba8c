"""The loop guard's principles, each with the legitimate work it must leave alone, and field cases the
catalogue does not hold (tests/field_scenarios/: re-read after a write, start-then-poll on MCP-style
definitions, a 412 re-read, echoed empty searches, 404 guessing, offsets that stop advancing)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from reference import Episode, ToolCall, ToolMessage, UserMessage, catalogue, find, parse_scenario
from reference.core.canonical import call_fingerprint
from reference.core.messages import AssistantMessage
from reference.parts.guards import LoopGuard
from reference.parts.guards.effects import ToolInfo, resource_changed
from reference.parts.guards.registry import DETECTORS
from reference.parts.guards.arguments import without_echoes
from reference.parts.guards.metadata import is_metadata
from reference.parts.guards.results import found_nothing
from reference.runs.runner import answered_again, completed, evaluate, executed_calls, interventions, run

FIELD = sorted(Path(__file__).parent.joinpath("field_scenarios").glob("*.yaml"))


def _load(path: Path):
    return parse_scenario(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))


def _caught_and_left_alone(loop: str, legitimate: str) -> None:
    """The field scenario `loop` meets its expectations with a repeated call answered first; `legitimate` completes
    with no intervention."""
    scenario = _load(next(p for p in FIELD if p.stem == loop))
    result = run(scenario, "guarded")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "repeated_call", (failed, interventions(result))
    scenario = _load(next(p for p in FIELD if p.stem == legitimate))
    result = run(scenario, "guarded")
    assert completed(scenario, result) and not interventions(result), interventions(result)


# ---------------------------------------------------------------- the registry: one rule, one legitimate case

@pytest.mark.parametrize("detector", DETECTORS, ids=[d.pattern for d in DETECTORS])
def test_each_detector_states_its_rule_in_one_sentence(detector):
    rule = (type(detector).__doc__ or "").strip()
    assert rule and rule.count(". ") == 0 and rule.endswith("."), f"{type(detector).__name__}: {rule!r}"


@pytest.mark.parametrize("detector", DETECTORS, ids=[d.pattern for d in DETECTORS])
def test_each_detector_leaves_its_legitimate_case_alone(detector):
    scenario = parse_scenario(yaml.safe_load(detector.legitimate), detector.pattern)
    result = run(scenario, "guarded")
    assert completed(scenario, result) and not interventions(result), (
        f"{detector.pattern}: {result.stop_reason.value}, interventions {interventions(result)}")


# ---------------------------------------------------------------- never worse than no guard on legitimate work

LEGITIMATE = [s for s in catalogue() if s.expect.completable]


@pytest.mark.parametrize("scenario", LEGITIMATE, ids=[s.name for s in LEGITIMATE])
def test_guarded_loop_does_at_least_as_well_as_the_react_loop_on_legitimate_work(scenario):
    """Where the lesson-1 loop completes the task on its own, no guard was needed: the guarded loop must
    complete it too, without intervening."""
    naive = run(scenario, "react")
    if not completed(scenario, naive):
        pytest.skip("the lesson-1 loop does not complete it: a guard is needed here")
    guarded = run(scenario, "guarded")
    assert completed(scenario, guarded), f"{scenario.name}: guarded stopped with {guarded.stop_reason.value}"
    assert not interventions(guarded), f"{scenario.name}: the guard intervened ({interventions(guarded)})"


# ---------------------------------------------------------------- field cases

@pytest.mark.parametrize("path", FIELD, ids=[p.stem for p in FIELD])
def test_field_scenario(path):
    scenario = _load(path)
    guarded, naive = run(scenario, "guarded"), run(scenario, "react")
    stop = scenario.expect.stop_reasons
    assert guarded.stop_reason.value in stop, f"{scenario.name}: {guarded.stop_reason.value}, expected {stop}"
    if scenario.expect.completable:
        assert completed(scenario, guarded) and not interventions(guarded), interventions(guarded)
        assert guarded.model_calls <= naive.model_calls
    else:
        assert interventions(guarded), "a stuck run is told before it is stopped"
        assert guarded.model_calls < naive.model_calls, (guarded.model_calls, naive.model_calls)
        assert scenario.expect.model_calls is None or guarded.model_calls <= scenario.expect.model_calls.max


# ---------------------------------------------------------------- a repeat: nothing new in between

def test_a_call_repeats_an_earlier_one_only_if_nothing_between_them_brought_new_information():
    """The same shell wait between polls of a build that moves each time is no repeat; a read and a refused
    edit whose answers never change are one loop, and still caught."""
    waits, cycle = (_load(next(p for p in FIELD if p.stem == name))
                    for name in ("wait-between-polls", "read-fail-edit-cycle"))
    result = run(waits, "guarded")
    assert completed(waits, result) and not interventions(result), interventions(result)
    result = run(cycle, "guarded")
    assert result.stop_reason.value == "repeated_call" and interventions(result)[0] == "repeated_call"


@pytest.mark.parametrize("name", ["shell-poll-back-to-back", "unknown-write-sent-twice"])
def test_a_call_of_unknown_effect_is_judged_by_what_it_answered(name):
    """A tool that declares nothing of its effects (a shell, a ticket desk): an answer with content marks a read,
    so a log tailed twice in a row runs and is judged by its answer; an acknowledgement (a success flag and
    the id it created) marks a write, so the same call sent again never runs twice."""
    scenario = _load(next(p for p in FIELD if p.stem == name))
    result = run(scenario, "guarded")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed, f"{name}: {'; '.join(failed)}"


@pytest.mark.parametrize("loop, legitimate", [
    ("refund-status-in-spanish-that-never-moves", "refund-status-polled-by-a-tool-named-in-spanish"),
    ("refund-created-again-by-a-tool-named-in-spanish", "refund-status-polled-by-a-tool-named-in-spanish"),
    ("reminder-sent-again-answering-only-its-state", "refund-status-polled-by-a-tool-named-in-spanish"),
])
def test_an_answer_that_names_only_what_the_call_sent_reads_the_thing_it_names(loop, legitimate):
    """A tool that declares nothing of its effects, whatever language its name is in, answering only the state of
    the thing the call names (no minted id, no number) reads it: asked again it runs and is judged by its answer, so
    a refund polled until it went through is left alone and one whose answer never moves is caught; a call whose
    answer holds a new id each time made something, and is not sent twice. A send answering only its recipient and
    a state word reads the same way: its second send runs once and is caught on its answer."""
    _caught_and_left_alone(loop, legitimate)


@pytest.mark.parametrize("loop, legitimate", [
    ("room-assigned-again-by-a-tool-whose-words-say-it-checks", "inbox-checked-again-answering-the-ids-of-its-messages"),
    ("room-assigned-again-by-a-tool-whose-words-say-it-checks", "build-looked-up-again-answering-the-id-it-was-sent"),
])
def test_an_answer_that_minted_a_thing_marks_a_write_whatever_the_words_of_its_tool(loop, legitimate):
    """A tool that declares nothing of its effects, named and described as a check, whose answer acknowledges one
    record holding an id it was not sent and nothing had shown (a room assignment), made a thing: the same call is
    not sent twice. An inbox answering the ids of its messages (a list), or a build's state read answering the id it
    was sent, minted nothing: asked again, it runs."""
    _caught_and_left_alone(loop, legitimate)


@pytest.mark.parametrize("legitimate", ["export-started-as-many-times-as-asked", "flaky-test-run-as-many-times-as-asked"])
def test_as_many_identical_runs_in_a_row_as_the_user_asked_for_are_no_duplicate(legitimate):
    """"Start the export 3 times" acknowledged with a new id each time, and a quoted test command run "3 times" passing
    alike each time, complete: the user's count is consulted for reads and writes alike. A run beyond the count is
    the repeat: two exports asked, the third is not started."""
    scenario = _load(next(p for p in FIELD if p.stem == legitimate))
    result = run(scenario, "guarded")
    assert completed(scenario, result) and not interventions(result), interventions(result)
    scenario = _load(next(p for p in FIELD if p.stem == "export-started-beyond-the-count-asked"))
    result = run(scenario, "guarded")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "repeated_call", (failed, interventions(result))


@pytest.mark.parametrize("text, content", [
    ("status: in_progress", False),  # as {"status": "in_progress"}: one state word
    ("  status: queued\nconclusion:", False),
    ("status: completed\nconclusion: success", True),  # two values printed one a line: a listing
    ("Memory saved.", True),  # a sentence of two words, no name labels it
    ("Error: file not found", True),
    ("w_101", False),
])
def test_a_name_a_text_prints_before_a_colon_labels_its_value_and_is_no_word_of_the_answer(text, content):
    from reference.parts.guards.responses import reports
    assert reports(text) is content


@pytest.mark.parametrize("loop, legitimate", [
    ("run-polled-behind-its-own-sleep-printing-its-status-after-it-ended",
     "run-polled-behind-its-own-sleep-printing-its-status"),
    ("run-polled-behind-its-own-sleep-printing-queued-forever", "run-polled-behind-its-own-sleep-printing-its-status"),
])
def test_a_status_printed_as_a_name_value_line_is_polled_as_its_json_is(loop, legitimate):
    """A workflow run polled behind the agent's own sleep whose shell prints `status: in_progress` waits as the
    same status in JSON does; the same poll after it answered completed, or queued for ever, is still caught."""
    _caught_and_left_alone(loop, legitimate)


@pytest.mark.parametrize("loop", ["search-asked-again-timed-by-a-member-of-any-name",
                                  "search-asked-again-with-a-fresh-edge-id"])
def test_a_member_that_moved_alone_as_a_responses_own_does_is_the_responses_whatever_its_name(loop):
    """A search asked again unchanged whose hits never move is caught in its window though each answer carries a
    timing or a request id under a name no convention lists; a job whose count of rows grows beside a fresh request
    token each time is polled to its end."""
    scenario = _load(next(p for p in FIELD if p.stem == loop))
    result = run(scenario, "guarded")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result), (failed, interventions(result))
    scenario = _load(next(p for p in FIELD if p.stem == "job-progress-polled-beside-a-fresh-request-token"))
    result = run(scenario, "guarded")
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_what_moved_alone_is_the_responses_only_as_a_fresh_token_or_a_number_that_turned_back():
    from reference.parts.guards.metadata import moved_alone
    hits = [{"title": "Key management"}]
    turned: dict = {}
    assert moved_alone({"hits": hits, "rid": "a1f3"}, {"hits": hits, "rid": "b7c2"}, (), lambda v: True, turned) == {"rid"}
    assert not moved_alone({"hits": hits, "rid": "a1f3"}, {"hits": hits, "rid": "b7c2"}, (), lambda v: False, turned)
    assert not moved_alone({"hits": hits, "ms": 41}, {"hits": hits, "ms": 37}, (), lambda v: True, turned)
    assert moved_alone({"hits": hits, "ms": 37}, {"hits": hits, "ms": 52}, (), lambda v: True, turned) == {"ms"}
    grows: dict = {}
    for was, now in ((10, 40), (40, 70)):
        assert not moved_alone({"state": "running", "done": was}, {"state": "running", "done": now}, (),
                               lambda v: True, grows)
    assert not moved_alone({"state": "running"}, {"state": "done"}, (), lambda v: True, {})  # a word: the answer
    assert not moved_alone({"rid": "a1f3"}, {"rid": "b7c2"}, (), lambda v: True, {})  # the whole answer


@pytest.mark.parametrize("name", ["rows-inserted-again-after-find", "credit-added-again-total-moved",
                                  "ticket-filed-again-after-list-misses-it", "load-more-after-snapshot"])
def test_news_a_write_made_itself_is_not_news_for_that_write(name):
    """A read that shows the rows a write sent, or a total moved only by the amount it sends, reports the write's
    own effect: the same write sent again is a duplicate. A read that shows what the write never named (other
    tickets, the list the first one is missing from; the next rows a "More" click loaded) is news."""
    scenario = _load(next(p for p in FIELD if p.stem == name))
    result = run(scenario, "guarded")
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed, f"{name}: {'; '.join(failed)}"


def test_a_failed_call_sent_again_runs_once_more_and_the_same_failure_is_the_repeat():
    """A failure changed nothing and may not recur: a read through a waking compute runs three times and answers;
    after the user says the token is renewed, the send runs once more, and the same 401 is the repeat, put in its
    answer's place; the next is answered before it runs. A failure that says of itself it will not pass
    (`retryable: false`) is the repeat before it runs."""
    scenario, result = _ends("query-retried-while-compute-wakes")
    assert completed(scenario, result) and len(executed_calls(result)) == 3, executed_calls(result)
    scenario, result = _ends("failure-alike-after-user-said-fixed")
    assert len(executed_calls(result)) == 2, executed_calls(result)  # the first, and the first after the user spoke
    assert interventions(result)[0] == "repeated_call" and result.stop_reason.value == "repeated_call"
    episode = _episode()
    guard, messages = LoopGuard.for_episode(episode), episode.initial_messages()
    _ask(guard, episode, messages, "c1", {"id": "Z9"})  # 404, and the executor's `retryable: false`
    assert _ask(guard, episode, messages, "c2", {"id": "Z9"}).action == "intervene"


def _ends(name: str):
    scenario = _load(next(p for p in FIELD if p.stem == name))
    return scenario, run(scenario, "guarded")


def _ends_as_labelled(name: str, caught: bool) -> None:
    """A loop is stopped within its scenario's limits; legitimate work completes with no intervention."""
    scenario, result = _ends(name)
    if caught:
        assert result.stop_reason.value in scenario.expect.stop_reasons and interventions(result)
        assert result.model_calls <= scenario.expect.model_calls.max
    else:
        assert completed(scenario, result) and not interventions(result), interventions(result)


def test_patience_grows_with_the_movement_a_poll_showed():
    """A status read a minute apart (a wait that prints nothing between) that moved twice may answer alike once on
    a long step and runs on; one that moved once and then answers the same forever is still told, then stopped."""
    paused, result = _ends("poll-moved-then-paused")
    assert completed(paused, result) and not interventions(result), interventions(result)
    frozen, result = _ends("poll-moved-then-frozen")
    assert result.stop_reason.value in frozen.expect.stop_reasons and interventions(result)
    assert result.model_calls <= frozen.expect.model_calls.max


def test_a_wait_that_printed_nothing_repeats_no_answer():
    """The same `sleep` between polls answers nothing, each time: its repeats are the polls' question, so the
    sleeps of a moving watch are never flagged, and a frozen watch is caught on the poll, not let run."""
    paused, result = _ends("poll-moved-then-paused")
    assert not interventions(result) and len(executed_calls(result)) == 9
    frozen, result = _ends("poll-moved-then-frozen")
    assert result.stop_reason.value != "max_steps" and interventions(result)


@pytest.mark.parametrize("name, caught", [("retry-after-honoured", False), ("retry-after-ignored", True),
                                          ("retry-after-honoured-forever", True),
                                          ("transient-then-retry-after-kept", False),
                                          ("transient-and-retry-after-alternating", True)])
def test_a_retry_the_server_asked_for_is_no_repeat(name, caught):
    """A 503 with Retry-After, the wait slept as told, is a retry (three in a row at most), and so is one after a
    refused connection: one budget; the same 503 sent again at once, or honoured without end, is a loop, and so
    is a request failing one way, then the other, without end."""
    _ends_as_labelled(name, caught)


def test_a_read_beside_a_new_question_in_one_batch_is_no_repeat():
    """The types file read again in each parallel batch beside a different handler runs untouched; the same
    two-file batch sent again is still a loop."""
    fanout, result = _ends("anchor-file-beside-each-handler")
    assert completed(fanout, result) and not interventions(result), interventions(result)
    assert len(executed_calls(result)) == 8
    same, result = _ends("same-batch-read-again")
    assert result.stop_reason.value in same.expect.stop_reasons and interventions(result)
    assert result.model_calls <= same.expect.model_calls.max


def test_an_open_world_action_whose_own_answer_moved_runs_again():
    """A "Load more" click whose own answer shows the next jobs each time runs untouched; the same click answered
    with the same page is still told, then stopped."""
    grows, result = _ends("load-more-clicks-grow-the-list")
    assert completed(grows, result) and not interventions(result), interventions(result)
    same, result = _ends("click-answers-the-same-page")
    assert result.stop_reason.value in same.expect.stop_reasons and interventions(result)
    assert result.model_calls <= same.expect.model_calls.max


@pytest.mark.parametrize("text, seconds", [
    ("HTTP/2 503 \nretry-after: 60\n\n<h1>down</h1>", 60.0),
    ("HTTP/1.1 429 Too Many Requests\nRetry-After: 5\n", 5.0),
    ("HTTP/1.1 503 Service Unavailable\ncontent-type: text/html\n", None),  # no Retry-After: no wait was asked
    ("HTTP/1.1 200 OK\nRetry-After: 30\n", None),  # not a failure
    ("the docs say: retry-after: 30 on 503", None),  # words about HTTP are not a response
])
def test_retry_after_is_read_from_a_503_or_429_response_only(text, seconds):
    from types import SimpleNamespace

    from reference.parts.guards.waits import retry_after
    assert retry_after(SimpleNamespace(content={"output": text})) == seconds


def test_a_read_runs_again_and_its_same_answer_is_replaced():
    """The second identical read runs, and its unchanged answer reaches the model as the guard's warning, not
    as the tool's output; the third is answered before it runs, and stops the run."""
    scenario = find("repeat-exact")
    result = run(scenario, "guarded")
    assert result.stop_reason.value == "repeated_call" and answered_again(result, "get_order_status") == 0
    assert len(executed_calls(result)) == 2


@pytest.mark.parametrize("key, value, metadata", [
    ("generated", "2026-12-02T01:00:00Z", True),  # RFC 3339 date-time: a moment by its standard form, any key
    ("served", "2026-12-02T09:00:00.250+08:00", True),
    ("generated", "2026-12-02", False),  # a date alone is content
    ("generated", "01:00:00", False),  # a clock time is a moment only under a key named like one (the last resort)
    ("generated_at", "01:00:00", True),
])
def test_a_moment_by_its_standard_form_whatever_its_key(key, value, metadata):
    assert is_metadata(key, value) is metadata, (key, value)


# ---------------------------------------------------------------- may a call change state?

@pytest.mark.parametrize("info, writes", [
    (ToolInfo("get_doc", annotations={}), True),  # a present, empty annotations object: readOnlyHint false
    (ToolInfo("delete_doc", annotations={"readOnlyHint": True}), False),  # annotations outrank the name
    (ToolInfo("x", description="GET /repos/{owner}/{repo} - a repository."), False),
    (ToolInfo("get_x", description="POST /search - run a saved search."), True),  # the method outranks the name
    (ToolInfo("list_files"), False),
    (ToolInfo("send_invoice", description="Send an invoice to a customer."), True),
    # a description that only names a thing says nothing of effects: unknown, judged by its answer (repeats.py)
    (ToolInfo("job_status", description="The status of a job."), True),
    (ToolInfo("send_email", description="A message to a recipient; returns its id."), True),
])
def test_what_may_change_state_is_read_from_annotations_then_the_method_then_the_name(info, writes):
    assert info.writes is writes


def test_an_annotated_read_moves_by_itself_unless_it_says_its_world_is_closed():
    assert ToolInfo("get_run", annotations={"readOnlyHint": True}).moves_by_itself  # openWorldHint defaults true
    assert not ToolInfo("get_run", annotations={"readOnlyHint": True, "openWorldHint": False}).moves_by_itself
    assert not ToolInfo("get_run").moves_by_itself  # no annotations: nothing said


@pytest.mark.parametrize("body, changed", [
    ({"error_type": "precondition_failed", "message": "HTTP 412 Precondition Failed: stale."}, True),
    ({"error_type": "rejected", "status": 409}, True),
    ({"error_type": "rejected", "message": "mismatch", "ETag": '"v2"'}, True),
    ({"error_type": "not_found", "status": 404, "message": "Not found."}, False),
])
def test_an_error_that_says_the_resource_changed(body, changed):
    assert resource_changed(body) is changed


# ---------------------------------------------------------------- progress is new information

def test_echoes_of_the_call_s_own_arguments_are_not_part_of_the_answer():
    args = {"q": "Hollis", "offset": 20}
    payload = {"query": "hollis", "offset": 20, "count": 20, "results": []}
    assert without_echoes(payload, args) == {"count": 20, "results": []}  # 20 as a count is content
    assert found_nothing({"results": [], "total": 0}) and not found_nothing({"in_stock": False})


# ---------------------------------------------------------------- the guard reads user messages in the history

def _episode():
    return Episode.from_scenario(parse_scenario({
        "name": "two-turns", "title": "unit", "user": "What is the status of order A1?",
        "tools": [{"name": "get_order", "description": "An order by id.",
                   "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
                   "rules": [{"when": {"id": "A1"}, "result": {"data": {"id": "A1", "status": "packed"}}},
                             {"result": {"fault": "not_found"}}]}],
        "model": {"script": [{"answer": "-"}]}, "expect": {"completable": True, "stop_reason": "completed"}}))


def _ask(guard, episode, messages, call_id, args):
    call = ToolCall(call_id, "get_order", json.dumps(args))
    messages.append(AssistantMessage(None, (call,)))
    verdict = guard.before_call(episode, call, messages)
    if verdict.action != "run":
        messages.append(verdict.message)
        return verdict
    result = guard.after_result(episode, call, episode.tools.execute(call))
    messages.append(result)
    guard.after_step(episode, messages)
    return verdict


def test_a_new_user_message_refreshes_reads_but_not_a_deterministic_failure():
    episode = _episode()
    guard, messages = LoopGuard.for_episode(episode), episode.initial_messages()
    assert _ask(guard, episode, messages, "c1", {"id": "A1"}).action == "run"
    assert _ask(guard, episode, messages, "c2", {"id": "Z9"}).action == "run"  # 404
    messages.append(UserMessage("Has it shipped by now?"))
    assert _ask(guard, episode, messages, "c3", {"id": "A1"}).action == "run", "the user asked again"
    assert _ask(guard, episode, messages, "c4", {"id": "Z9"}).action == "intervene", "a 404 stays a 404"


def test_one_canonical_form_answers_for_the_guard_the_executor_and_the_trace():
    spaced = call_fingerprint("read_file", '{ "path" : "./docs//guide/../a.md" }')
    assert spaced == call_fingerprint("read_file", '{"path": "docs/a.md"}')
    assert call_fingerprint("f", "not json") == call_fingerprint("f", " not   json ")


def test_an_http_uri_is_one_call_in_any_spelling_but_its_query_and_path_stay_its_own():
    """RFC 3986 and RFC 9110 say which spellings are one resource; the query and the path's case are the
    server's to read, so a legitimate search through one page's queries is never merged."""
    params = {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}}
    fp = lambda url: call_fingerprint("fetch", json.dumps({"url": url}), params)  # noqa: E731
    one = fp("https://docs.example.org/3/library/streams.html")
    for spelling in ("HTTPS://DOCS.EXAMPLE.ORG/3/library/streams.html", "https://docs.example.org:443/3/library/"
                     "./streams.html", "https://docs.example.org/3/library/streams.html#", "https://docs.example"
                     ".org/3/x/../library/streams.html"):
        assert fp(spelling) == one, spelling
    for other in ("https://docs.example.org/3/library/streams.html?q=reader", "https://docs.example.org/3/"
                  "Library/streams.html", "http://docs.example.org/3/library/streams.html",
                  "https://docs.example.org:8443/3/library/streams.html"):
        assert fp(other) != one, other


# ---------------------------------------------------------------- words that do not invite the behaviour

def test_interventions_do_not_name_what_they_warn_against_and_stay_short():
    for scenario in catalogue():
        result = run(scenario, "guarded")
        for m in result.messages:
            body = json.loads(m.content) if isinstance(m, ToolMessage) and m.content.startswith("{") else {}
            if body.get("error_type") != "loop_detected":
                continue
            prose = " ".join([str(body.get("instruction", "")), *map(str, body.get("options", []))]).lower()
            assert not any(word in prose for word in ("again", "retry", "repeat")), (scenario.name, prose)
            assert len(str(body.get("instruction", ""))) <= 160, (scenario.name, body["instruction"])


# ---------------------------------------------------------------- what belongs to the response, not the answer

def test_a_timestamp_is_the_resources_own_once_it_moved_with_the_rest_of_the_answer():
    from reference.parts.guards.responses import owned_moments
    clock = {"checked_at": "2026-11-30T09:00:05Z"}
    assert owned_moments(("a", clock), ("a", {"checked_at": "2026-11-30T09:00:10Z"})) == set()  # moved alone
    assert owned_moments(("a", {"updated_at": "11:00:03"}), ("b", {"updated_at": "11:00:41"})) == {"updated_at"}
    assert owned_moments(("a", {"updated_at": "11:00:03"}), ("b", {"updated_at": "11:00:03"})) == set()


@pytest.mark.parametrize("key, value, metadata", [
    ("cache_ts", 1764623100, True),  # a response's own epoch under Slack's `_ts` naming: it moves on every call
    ("thread_ts", "1764400220.000700", False),  # a message's id, spelled as a timestamp string: content
    ("event_ts", "gate B", False),
])
def test_a_moment_is_named_ts_timestamp_or_at_and_has_a_moments_shape(key, value, metadata):
    from reference.parts.guards.metadata import is_metadata
    assert is_metadata(key, value) is metadata


@pytest.mark.parametrize("content, ok", [
    ('{"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Invalid params"}}', False),
    ('{"jsonrpc": "2.0", "id": 1, "result": {"rows": 3}}', True),
    ('{"error": "Argument Validation Error", "message": "teamId must be a UUID.", "extensions": {"code": "X"}}', False),
    ('{"error": {"type": "invalid_request_error", "code": "charge_already_refunded"}}', False),
    ('{"data": null, "errors": [{"message": "not found"}]}', False),
    ('{"data": {"issue": {"id": "I-1"}}, "errors": [{"message": "a field was dropped"}]}', True),  # partial data
    ('{"result": {"rows": 3}, "error": null}', True),
    ('{"status": "failed", "error": "the build broke"}', True),  # a resource in a failed state: an answer
    ('{"count": 2, "error": 0}', True),
    ('{"ok": true, "channels": [{"id": "C1"}], "response_metadata": {"next_cursor": ""}}', True),  # an API's own envelope
    ('{"ok": false, "error": "channel_not_found"}', False),
])
def test_an_error_response_by_its_protocols_own_rule_is_a_failure(content, ok):
    from reference.parts.guards.responses import parse_result
    assert parse_result(content)[0] is ok


@pytest.mark.parametrize("arguments, names_nothing", [
    ({}, True), ({"command": "", "is_input": "true"}, True), ({"command": "sleep 90"}, False), (None, False),
])
def test_a_call_names_no_target_when_every_argument_is_empty_or_a_closed_choice(arguments, names_nothing):
    from reference.parts.guards.repeats import names_nothing as said
    schema = {"type": "object", "properties": {"command": {"type": "string"},
                                               "is_input": {"type": "string", "enum": ["true", "false"]}}}
    assert said(arguments, schema) is names_nothing


def test_an_apis_own_ok_envelope_carries_its_answer_in_its_other_members(tmp_path):
    """Slack's Web API answers `{"ok": true, "channels": [...]}`: the channels are the answer, so a first page, its
    next page and the histories of the channels it listed are each new information, never "no progress"."""
    from reference.diagnosis.logs import read_log
    from reference.diagnosis.shadow import judge
    from reference.parts.guards.responses import parse_result
    assert parse_result('{"ok": true, "channels": [{"id": "C1"}]}') == (True, {"channels": [{"id": "C1"}]})

    def call(i, name, args):
        return {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}

    def page(channels, cursor):
        return json.dumps({"ok": True, "channels": [{"id": c, "name": c.lower()} for c in channels],
                           "response_metadata": {"next_cursor": cursor}})
    history = [{"role": "user", "content": "Read the incident channels."},
               {"role": "assistant", "content": None, "tool_calls": [call(1, "list_channels", {"limit": 2})]},
               {"role": "tool", "tool_call_id": "c1", "content": page(["C1", "C2"], "abc")},
               {"role": "assistant", "content": None, "tool_calls": [call(2, "list_channels", {"limit": 2, "cursor": "abc"})]},
               {"role": "tool", "tool_call_id": "c2", "content": page(["C3"], "")},
               {"role": "assistant", "content": None, "tool_calls": [call(3 + i, "channel_history", {"channel_id": c})
                                                                     for i, c in enumerate(["C1", "C2", "C3"])]},
               *[{"role": "tool", "tool_call_id": f"c{3 + i}",
                  "content": json.dumps({"ok": True, "messages": [{"ts": f"17644000{i}.0001", "text": f"update {c}"}]})}
                 for i, c in enumerate(["C1", "C2", "C3"])],
               {"role": "assistant", "content": "Three channels read."}]
    path = tmp_path / "slack.json"
    path.write_text(json.dumps(history))
    (conversation,) = list(read_log(path))
    assert [c["verdict"] for c in judge(conversation).calls] == ["run"] * 5


# ---------------------------------------------------------------- warnings expire with progress

def _long_run(progress: bool):
    """An early re-read the guard warns on, then (or not) eight documents read, then two searches that find
    nothing: the second warning of the run."""
    docs = [f"d{i}" for i in range(2, 10)] if progress else []
    return parse_scenario(yaml.safe_load(f"""
name: warning-then-{'progress' if progress else 'nothing'}
title: An early re-read, {'a long stretch of progress' if progress else 'nothing new'}, then two empty searches
user: Give me the titles of my documents, and find the changelog.
limits: {{max_steps: 20}}
tools:
  - {{name: get_doc, description: A document., parameters: {{type: object, properties: {{id: {{type: string}}}}}},
     rules: [{", ".join(f"{{when: {{id: d{i}}}, result: {{data: {{title: Report {i}}}}}}}" for i in range(1, 10))}]}}
  - {{name: search_docs, description: Documents matching a query., parameters: {{type: object, properties:
     {{query: {{type: string}}}}}}, rules: [{{result: {{data: {{results: []}}}}}}]}}
model:
  script:
    - call: {{tool: get_doc, args: {{id: d1}}}}
    - call: {{tool: get_doc, args: {{id: d1}}}}
{"".join(f"    - call: {{tool: get_doc, args: {{id: {d}}}}}{chr(10)}" for d in docs)}    - call: {{tool: search_docs, args: {{query: changelog}}}}
    - call: {{tool: search_docs, args: {{query: release notes}}}}
    - answer: I found no changelog.
expect: {{completable: true, stop_reason: completed, oracle_model_calls: {6 + len(docs)}}}
"""), "warnings")


def test_a_warning_counts_toward_a_stop_only_until_the_run_shows_progress():
    """One early re-read and, eight documents later, an unrelated warning: two warnings, no stop. The same
    two warnings with nothing new between them stop the run."""
    long = run(_long_run(progress=True), "guarded")
    assert long.stop_reason.value == "completed", long.stop_reason.value
    assert interventions(long) == ["repeated_call", "no_progress"]
    short = run(_long_run(progress=False), "guarded")
    assert short.stop_reason.value == "no_progress" and interventions(short)[0] == "repeated_call"


# ---------------------------------------------------------------- a count of calls is the response's own

def test_a_number_that_rises_with_each_call_and_equals_its_number_counts_calls_not_the_world():
    from reference.parts.guards.responses import without_call_counts
    assert without_call_counts({"history": 1, "x": "a"}, 1, set()) == ({"history": 1, "x": "a"}, {"history"})
    assert without_call_counts({"history": 2, "x": "a"}, 2, {"history"}) == ({"x": "a"}, {"history"})
    assert without_call_counts({"total": 2, "x": "a"}, 2, set())[0] == {"total": 2, "x": "a"}, "once is content"
    assert without_call_counts({"history": 7}, 3, {"history"})[0] == {"history": 7}, "off the count: content"


# ---------------------------------------------------------------- exercise 3's helpers: words are the last resort

def test_exercise_3_reads_annotations_then_the_http_method_then_words_as_a_last_resort():
    from reference.parts.guards.traits import ToolInfo as GivenInfo
    live = "Start an export job and report its progress."
    assert GivenInfo({}, live).polls == "recheck"  # a bare definition: the words are all there is
    assert GivenInfo({}, "POST /exports - " + live).polls is None, "an unsafe method outranks the words"
    assert GivenInfo({}, "GET /exports/{id} - " + live).polls == "recheck", "a safe method leaves it to the words"
    assert GivenInfo({}, live, annotations={"readOnlyHint": False}).polls is None, "annotations outrank both"
    assert GivenInfo({}, "A user's profile.", annotations={"readOnlyHint": True, "openWorldHint": True}).polls == "recheck"


# ---------------------------------------------------------------- transient failures: a retry budget, not forever

def test_a_call_failing_for_a_transient_reason_runs_again_up_to_three_attempts_in_all():
    """Two 503s and a success is a retry with back-off, left alone; a fourth attempt after three 503s in a row
    is a repeat."""
    def episode(results):
        return Episode.from_scenario(parse_scenario({
            "name": "transient", "title": "unit", "user": "What is the status of order A1?",
            "tools": [{"name": "get_order", "description": "An order by id.",
                       "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
                       "rules": [{"results": results}]}],
            "model": {"script": [{"answer": "-"}]}, "expect": {"completable": True, "stop_reason": "completed"}}))
    failing = {"fault": "server_error"}
    ep = episode([failing, failing, {"data": {"status": "packed"}}])
    guard, messages = LoopGuard.for_episode(ep), ep.initial_messages()
    assert [_ask(guard, ep, messages, f"c{i}", {"id": "A1"}).action for i in range(3)] == ["run"] * 3
    ep = episode([failing])
    guard, messages = LoopGuard.for_episode(ep), ep.initial_messages()
    assert [_ask(guard, ep, messages, f"c{i}", {"id": "A1"}).action for i in range(4)] == ["run"] * 3 + ["intervene"]


@pytest.mark.parametrize("body, passes", [
    ({"message": "Error: connect ECONNREFUSED /run/agentd.sock (message not sent)"}, True),  # an errno name
    ({"message": "Error: request timed out after 15000 ms"}, True),  # the C library's words for ETIMEDOUT
    ({"message": "Error: 504 Gateway Timeout"}, True),  # a status code with its reason phrase
    ({"message": "HTTP/1.1 503 Service Unavailable\nretry-after: 5"}, True),  # a status line
    ({"error": {"code": 503, "message": "down", "status": "UNAVAILABLE"}}, True),  # Google's JSON error, gRPC's name
    ({"ok": False, "error": "ratelimited"}, True),  # Slack's own code
    ({"ok": False, "error_type": "timeout", "retryable": True}, True),  # the API's own field
    ({"ok": False, "error_type": "circuit_open", "retryable": False, "message": "'x' timed out."}, False),
    ({"code": 4, "message": "a message with ID m1 already exists", "StatusCode": 400}, False),
    ({"message": "Error: 404 Not Found"}, False),
    ({"status": 422, "detail": "the request timed out waiting for a lock"}, False),  # the input is wrong first
    ({"message": "no such column: refund_id"}, False),
    ({"message": "the timeout argument must be positive"}, False),  # words about a timeout are no timeout
])
def test_a_failure_passes_by_itself_when_a_standard_says_so_where_the_answer_says_it(body, passes):
    """One test of "transient" for the whole guard: errno names and the C library's words, HTTP 408, 429, 502,
    503 and 504 by status field, status line or reason phrase, gRPC's names, the APIs' own fields."""
    from reference.parts.guards.responses import transient
    assert transient(body) is passes


@pytest.mark.parametrize("name, caught", [("write-retried-after-connection-failures", False),
                                          ("write-retried-after-connection-failures-forever", True),
                                          ("write-resent-after-bad-request", True)])
def test_a_write_that_failed_for_a_transient_reason_is_sent_again_three_attempts_in_all(name, caught):
    """A send refused at the connect step, then answered 503, changed nothing: the third identical send runs. The
    fourth after three such failures, or the same send after a 400 (the input is wrong), is a repeat."""
    _ends_as_labelled(name, caught)


def _reworded(member: str, values: list, queries: list[str]) -> dict:
    """One search tool asked in other words each time, its hits unchanged, one member moving as `values` say."""
    hits = [{"title": "Edge proxy overview", "url": "https://docs.example/edge"}]
    return {
        "name": "reworded-search", "title": "One search reworded", "user": "Find the runbook for rotating the TLS certificate on the edge proxies.",
        "tools": [{"name": "search_docs", "description": "Search the internal docs.",
                   "annotations": {"readOnlyHint": True, "openWorldHint": False},
                   "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
                   "rules": [{"results": [{"data": {"hits": hits, member: v}} for v in values]}]}],
        "model": {"script": [*({"call": {"tool": "search_docs", "args": {"query": q}}} for q in queries),
                             {"answer": "I could not find a rotation runbook."}]},
        "expect": {"completable": False, "stop_reason": "same_result"}}


_QUERIES = ["rotate TLS certificate edge proxy", "edge proxy certificate rotation runbook",
            "renew TLS cert on edge", "edge TLS certificate renewal procedure"]


@pytest.mark.parametrize("member", ["duration_ms", "executionTime", "tiempo_ms"])
def test_a_number_that_turned_back_beside_the_same_answer_to_reworded_calls_is_the_responses(member):
    """Rewordings of one search that get the same hits and a timing under any name are the same answer again."""
    result = run(parse_scenario(_reworded(member, [41, 37, 52, 44], _QUERIES)), "guarded")
    assert "same_result" in interventions(result), interventions(result)


@pytest.mark.parametrize("member", ["duration_ms", "elapsed_time", "search_time", "executionTime", "tiempo_ms"])
def test_a_member_known_to_be_the_responses_is_left_out_of_the_earlier_answers_too(member):
    """Once a timing under any name is known to be the response's, the answers got before it was known are read
    without it as well: four rewordings that got the same hits are stopped as the conventions' `took_ms` is."""
    result = run(parse_scenario(_reworded(member, [41, 37, 52, 44], _QUERIES)), "guarded")
    assert result.stop_reason.value == "same_result", (result.stop_reason, interventions(result))


@pytest.mark.parametrize("member, values", [("id", ["u1a2b", "u9f3c", "u4d7e", "u2b8a"]), ("total", [41, 45, 52, 60])])
def test_a_token_or_a_count_that_grew_beside_the_same_answer_to_reworded_calls_is_the_answer(member, values):
    """Records differing only in their ids, and a count that only grew, are answers that moved: nothing flags them."""
    result = run(parse_scenario(_reworded(member, values, _QUERIES[:3] + ["edge proxy runbooks"])), "guarded")
    assert not interventions(result), interventions(result)
