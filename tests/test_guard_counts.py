"""How many runs the user asked for (reference/parts/guards/counts.py): a number right before the plural of what it
counts, that the run's calls do not send, in whatever language num2words spells it or in digits of any script; a
wait, a measure, a date, a name, or a number before no plural counts nothing."""
from __future__ import annotations

import pytest

from reference.parts.guards.counts import asked_for
from reference.runs.runner import completed, evaluate, interventions
from tests.helpers.field_runs import run_field


@pytest.mark.parametrize("request_, count", [
    ("Kick off three runs of the load test, so just create it three times.", 3),
    ("Run it 5 times separately (no caching).", 5),
    ("Lanza la prueba de carga: créalo tres veces y luego dame los nombres.", 3),
    ("Créalo tres veces.", 3),
    ("Fais-le trois fois, s'il te plaît.", 3),
    ("请把它创建三次，然后告诉我名字。", 3),  # no spaces, no plural: 三 right before what it counts
    ("请创建3次。", 3),
    ("3回実行してください。", 3),
    ("Run it ٣ times.", 3),  # Arabic-Indic digits
    ("The manifest uses generateName: create it 3x, then give me the job names.", 3),  # the sign in ASCII
    ("Run the import 4×.", 4),  # the multiplication sign, U+00D7
    ("Run the smoke test 200 times and tell me how many fail.", 200),  # no fixed top: a count is held to the runs
    ("Starte den Export des Berichts r-7 dreimal hintereinander, ich brauche drei Kopien.", 3),
])
def test_a_number_before_the_plural_of_what_it_counts_is_the_count(request_, count):
    assert asked_for(request_) == count


@pytest.mark.parametrize("request_", [
    "Start the export by hand, then check back in five minutes and tell me whether it finished.",  # a wait
    "Start it by hand, then check back in 5 minutes.",  # a wait, in digits
    "Lanza el export y vuelve a mirar dentro de cinco minutos.",  # a wait, in Spanish
    "启动导出，五分钟后再看一下。",  # a wait, in Chinese
    "5分後に確認してください。",  # a wait, in Japanese
    "Enable 2FA for the whole team.",  # digits inside a word are a name
    "Upload 2 GB of logs to the bucket.",  # a measure
    "My flight HAT045 on May 14 was cancelled. Send the compensation.",  # a date
    "Vuelo del 5 de diciembre cancelado: envía la compensación.",  # a date, in Spanish
    "Keep an eye on pipeline 1187342 on acme/storefront.",  # an id
    "v2 is out: post the release notes at 10:30.",  # a version, a clock time
    "明日の朝9時に歯医者の予約があるので、リマインダーを入れておいて。",  # a time of day: CLDR's hour pattern "H時"
    "내일 아침 9시에 치과 예약 알림을 넣어줘.",  # a time of day, in Korean ("H시")
    "Trigger it once manually.",  # "once" is Spanish for eleven, but no plural follows it
    "Send it to Bob.",  # "to" is Danish for two: two letters tell no language apart
    "Charge the $100 onboarding fee.",  # an amount
    "Resize the banner to 1920x1080.",  # a size: a number follows the sign
    # English: "and" is CLDR's English alone, so "once" is not read as the Spanish eleven before the plural "tests"
    "Once tests pass, create the load test job from jobs/loadtest-job.yaml in namespace perf and give me its name.",
])
def test_a_wait_a_measure_a_date_or_a_name_counts_nothing(request_):
    assert asked_for(request_) == 1


def test_a_number_the_calls_send_names_what_they_act_on():
    assert asked_for("Scale the deployment to 6 replicas.") == 6
    assert asked_for("Scale the deployment to 6 replicas.", frozenset({6})) == 1  # `replicas: 6` is sent


def _caught_as_a_repeat(name: str) -> None:
    scenario, result = run_field(name)
    failed = [c.detail for c in evaluate(scenario, result) if not c.ok]
    assert not failed and interventions(result)[0] == "repeated_call", (failed, interventions(result))


def _runs(name: str) -> None:
    scenario, result = run_field(name)
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_a_wait_the_user_mentions_lets_no_repeated_create_through():
    # "check back in five minutes" was read as five runs asked for: five identical creates went through
    _caught_as_a_repeat("job-created-again-check-back-in-five-minutes")


def test_three_runs_asked_for_in_spanish_run_and_a_fourth_is_caught():
    # "créalo tres veces" was read as one run: the second create was stopped
    _runs("jobs-created-three-times-as-asked-in-spanish")
    _caught_as_a_repeat("jobs-created-past-the-three-asked-in-spanish")


def test_a_spelled_number_counts_only_in_the_language_the_message_is_written_in():
    # "once" is Spanish for eleven: read in an English request, eleven identical creates were let through
    assert asked_for("Once tests pass, create the job and tell me if it failed.") == 1
    assert asked_for("Lanza la prueba y créala once veces; hace una semana bastaba.") == 11  # Spanish: "hace"
    assert asked_for("Ejecuta pytest tests/test_today.py tres veces.") == 3  # a path is in no language of the message
    _caught_as_a_repeat("job-created-again-once-tests-pass")


def test_three_runs_asked_for_with_the_times_sign_run():
    # "create it 3x" was read as one run: the second create was stopped
    _runs("jobs-created-three-times-as-asked-with-the-times-sign")


def test_words_between_a_number_and_its_plural_count_only_things_each_run_made():
    assert asked_for("Create 3 new tickets for the outage.", made=True) == 3
    assert asked_for("Create 3 new tickets for the outage.") == 1  # runs that made nothing: "the 3 failing tests"
    assert asked_for("Upload 2 GB of raw logs to the bucket.", made=True) == 1  # a unit right after it still measures
    assert asked_for("Erstelle ihn 3 Mal und nenne mir dann die Namen der Jobs.", made=True) == 1  # past its noun
    _runs("tickets-created-three-as-asked-new")  # the second create, a new id each time, was stopped
    _caught_as_a_repeat("test-fix-edited-again-the-3-failing-tests")  # the same edit again makes nothing


def test_one_notice_to_each_of_three_customers_runs():
    _runs("notice-sent-to-three-customers")
