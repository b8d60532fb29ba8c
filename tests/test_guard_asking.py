"""Which calls ask one question (reference/parts/guards/asking.py): a value the agent was given tells two calls
apart, its own wording does not; a wait that grows for a bare state is a back-off. Checked on the rule's parts and
on field conversations the kit did not write (tests/field/cases6, judged in shadow mode)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reference.core.messages import ToolCall
from reference.diagnosis.logs import read_log
from reference.diagnosis.shadow import judge
from reference.parts.guards.asking import Given, backing_off, bare_state, listed_by, told_apart, waits_longer
from reference.parts.guards.days import days_written
from reference.parts.guards.state import GuardedCall
from tests.helpers.chat_logs import judged

CASES6 = Path(__file__).parent / "field" / "cases6"


def _call(arguments: dict, content=None) -> GuardedCall:
    a = GuardedCall(0, ToolCall("c", "tool", json.dumps(arguments)), "tool", arguments=arguments)
    a.content = content
    return a


def _given(text: str) -> Given:
    folded = text.casefold()
    return Given(folded, set(re.findall(r"\w+", folded)))


MANIFEST = _given("Geocode these:\nTorstr. 999, Berlin\nMusterweg 0, Berlin\nNowhere Str. 5, Berlin")
USER = _given("Find me a vegan place in Kreuzberg that is still open after midnight tonight.")


def test_lines_of_a_manifest_the_user_pasted_are_different_questions():
    assert told_apart(_call({"address": "Torstr. 999, Berlin"}), _call({"address": "Musterweg 0, Berlin"}), MANIFEST)


def test_a_search_reworded_with_the_users_own_words_is_one_question():
    """Free wording counts as given only whole: any rewording reuses the user's words."""
    was, now = _call({"query": "vegan place Kreuzberg open after midnight"}), _call({"query": "vegan Kreuzberg open tonight"})
    assert not told_apart(was, now, USER)


def test_the_users_question_sent_again_in_another_case_or_punctuation_is_one_question(tmp_path):
    """The two texts are each given whole, but they are one text: nothing given tells them apart."""
    user = "How many days of parental leave do contractors get?"
    assert not told_apart(_call({"query": user}), _call({"query": user.upper().rstrip("?") + " "}), _given(user))
    assert told_apart(*(_call({"query": f"{w} tutorial for beginners"}) for w in ("C++", "C")),
                      _given("Find a C++ tutorial for beginners, and a C tutorial for beginners."))
    tools = [{"type": "function", "function": {"name": "find_passages", "description": "Search the handbook.",
              "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}]
    found = {"passages": ["Employees get 16 weeks of paid parental leave.", "Handbook benefits exclude contractors."]}
    steps = [("find_passages", {"query": q}, found) for q in (user, user.lower(), user.upper(), user.rstrip("?"))]
    assert any(c["rule"] == "same_result" for c in judged(tmp_path, tools, user, steps).calls)


def test_keys_built_from_names_the_user_listed_are_different_questions():
    given = _given("Turn the banner off for acme and globex (keys banner:<tenant>).")
    assert told_apart(_call({"key": "banner:acme"}), _call({"key": "banner:globex"}), given)
    assert not told_apart(_call({"key": "banner:acme"}), _call({"key": "banner:wonka"}), given)  # wonka: not given


def test_one_template_over_names_an_answer_listed_asks_one_question_per_name():
    """Word for word the same text but one word, on both sides a name the agent was given, is another question;
    a reworded text, or a slot filled with a name nobody gave, is the same one."""
    given = _given("orders payments refunds")
    count = "SELECT count(*) FROM raw.{} WHERE loaded_at >= DATE '2026-12-01'"
    assert told_apart(_call({"sql": count.format("orders")}), _call({"sql": count.format("payments")}), given)
    assert not told_apart(_call({"sql": count.format("orders")}), _call({"sql": count.format("invoices")}), given)
    assert not told_apart(_call({"query": "orders refunds latest"}), _call({"query": "payments refunds newest"}),
                          given)


def test_one_template_over_several_names_each_given_asks_one_question_per_set_of_names():
    """A table and its own column, both from a schema read before, fill two places of one query: another question;
    one place filled with a name nobody gave makes it the same one."""
    given = _given("compass_invoice,pagecount,int\nprivera_invoice,seiten,int\ncompass_invoice,importdate\n"
                   "privera_invoice,importdatum")
    q = "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY {}) OVER () AS m FROM dbo.{} WHERE {} >= '2026-03-01'"
    assert told_apart(_call({"query": q.format("PageCount", "Compass_Invoice", "ImportDate")}),
                      _call({"query": q.format("Seiten", "Privera_Invoice", "Importdatum")}), given)
    assert not told_apart(_call({"query": q.format("PageCount", "Compass_Invoice", "ImportDate")}),
                          _call({"query": q.format("Seitenzahl", "Privera_Invoice", "Importdatum")}), given)


def test_a_call_about_a_thing_an_earlier_answer_listed_asks_what_that_answer_made_askable():
    listing = _call({"sql": "SELECT table_name FROM information_schema.tables"}, "table_name orders payments")
    listing.ran = True
    assert listed_by(listing, _call({"sql": "SELECT count(*) FROM raw.payments"}))
    assert not listed_by(listing, _call({"sql": "SELECT count(*) FROM raw.invoices"}))


def test_a_bare_number_names_nothing_even_when_the_text_holds_it():
    assert not told_apart(_call({"team": "payments", "page": 2}), _call({"team": "payments", "page": 3}),
                          _given("page 2 of 3"))


def test_a_wait_that_grows_for_a_bare_state_is_a_back_off():
    calls = [_call({"command": f"sleep {s}; test -f done && echo READY || echo 'not yet'"}, "not yet")
             for s in (30, 60, 120)]
    assert waits_longer(calls[0], calls[1]) and bare_state(calls[2]) and backing_off(calls[:2], calls[2])


def test_a_window_widened_over_a_log_is_not_a_back_off():
    log = "01:12:04 starting worker 2.3.1\n01:12:19 fatal: giving up after 3 attempts\n"
    calls = [_call({"command": f"tail -n {n} logs/worker.log"}, log) for n in (100, 200, 400)]
    assert waits_longer(calls[0], calls[1]) and not bare_state(calls[2]) and not backing_off(calls[:2], calls[2])


def test_a_wait_that_shrinks_or_changes_its_words_is_not_a_back_off():
    assert not waits_longer(_call({"command": "sleep 60; check"}), _call({"command": "sleep 30; check"}))
    assert not waits_longer(_call({"command": "sleep 30; curl -sf localhost:3000/health"}),
                            _call({"command": "sleep 60; curl -sf http://localhost:3000/health"}))


def _flags(name: str) -> list[str]:
    (conversation,) = list(read_log(CASES6 / f"{name}.json"))
    return [c["rule"] for c in judge(conversation).calls if c["verdict"] != "run"]


@pytest.mark.parametrize("name", ["legit_maps_geocode_manifest_batch", "legit_redis_batch_distinct_tenant_flags",
                                  "legit_deerflow_backoff_wait_for_done_marker"])
def test_field_work_on_different_things_that_answers_alike_is_left_alone(name):
    assert _flags(name) == []


@pytest.mark.parametrize("name", ["loop_maps_reworded_place_search", "loop_agno_limit_reached_reworded_search",
                                  "loop_deerflow_bash_respelled_ls", "loop_cline_read_same_file_volatile_progress"])
def test_field_questions_asked_again_in_other_words_are_still_caught(name):
    assert "same_result" in _flags(name)


def test_the_days_a_user_writes_are_read_in_digits_or_as_cldr_writes_a_day_of_a_month():
    """Numeric forms in both orders, a day by any language's CLDR day-of-month pattern and month names; no month
    names of the kit's own."""
    assert days_written("from 5/20 to 5/26") == days_written("from 20/05 to 26/05") == ((5, 20), (5, 26))
    assert days_written("from may 20 to 26th of may") == ((5, 20), (5, 26))
    assert days_written("on 01/02") == ((1, 2), (2, 1))  # day and month could swap: both days
    assert days_written("python 3.14, 20 seats") == days_written("version 2.3") == ()
    for one in ("on may 20", "el 20 de mayo", "am 20. mai", "20 мая", "5月20日の予約", "5월 20일"):
        assert days_written(one) == ((5, 20),), one


@pytest.mark.parametrize("text", ["from may 20 to 26", "may 20th through the 26th", "may 20-26", "del 20 al 26 de mayo",
                                  "20-26 de mayo", "vom 20. bis 26. mai", "5月20日から26日まで"])
def test_a_bare_day_beside_a_day_of_a_month_is_the_other_end_of_its_range(text):
    """As CLDR's interval formats write a range within one month ("May 20 – 26", "20–26 de mayo")."""
    assert days_written(text) == ((5, 20), (5, 26))


def test_a_number_that_cannot_be_the_other_end_of_a_range_is_no_day():
    assert days_written("may 20 for 3 nights") == days_written("may 20; 25 guests") == ((5, 20),)


def _bookings(tmp_path, user: str, days: list[int]) -> list[tuple[int, str]]:
    """A studio's bookings asked for day by day (`days` of May 2026), each answering none: the calls flagged."""
    tool = {"type": "function", "function": {
        "name": "get_bookings", "description": "Bookings of the studio on one day.",
        "parameters": {"type": "object", "properties": {"date": {"type": "string", "format": "date"}}},
        "annotations": {"readOnlyHint": True, "openWorldHint": False}}}
    steps = [("get_bookings", {"date": f"2026-05-{day:02d}"}, {"bookings": [], "total": 0}) for day in days]
    return [(c["message"], c["rule"]) for c in judged(tmp_path, [tool], user, steps, "No bookings.").calls
            if c["verdict"] != "run"]


@pytest.mark.parametrize("user", ["Any bookings from May 20 to May 26?", "Any bookings from 5/20 to 5/26?",
                                  "Any bookings from may 20 to 26?", "Any bookings May 20th through the 26th?",
                                  "Any bookings from 20/05 to 26/05?", "¿Hay reservas del 20 al 26 de mayo?",
                                  "Gibt es Buchungen vom 20. bis 26. Mai?", "Any bookings next week?"])
def test_a_walk_over_the_days_of_a_week_asks_about_another_day_each_time(tmp_path, user):
    assert _bookings(tmp_path, user, list(range(20, 27))) == []


@pytest.mark.parametrize("user", ["Any bookings on May 20?", "Any bookings on 20/05?", "¿Hay reservas el 20 de mayo?",
                                  "Gibt es Buchungen am 20. Mai?", "5月20日の予約はありますか？"])
def test_days_past_the_one_day_the_user_wrote_are_no_walk_the_user_asked_for(tmp_path, user):
    assert [rule for _, rule in _bookings(tmp_path, user, list(range(20, 27)))][:1] == ["no_progress"]


def test_days_tried_in_no_order_are_no_walk(tmp_path):
    """Without days the user wrote, only dates moved on by one step each walk the calendar: jumps are guesses."""
    assert _bookings(tmp_path, "Find a free day for the studio.", [20, 27, 3, 14, 9, 30, 1])


def test_the_cldr_table_beside_the_guard_reads_months_and_day_patterns_of_many_languages():
    from reference.parts.guards.days import CLDR_DAYS, _patterns
    import json
    table = json.loads(CLDR_DAYS.read_text(encoding="utf-8"))
    assert table["source"].startswith("CLDR ")  # which CLDR wrote it, for whoever writes it again
    patterns, names = _patterns()
    assert {names[n] for n in ("may", "mayo", "mai", "мая", "5月")} == {frozenset({5})}
    assert len(patterns) >= 20  # the day-of-month patterns of dozens of languages, each a regular expression
