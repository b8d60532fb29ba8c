"""The same answer to one question, nothing new said in between, is a loop however the calls are spelled
(reference/parts/guards/answers.py), and what it must leave alone; answers are judged without the wording they
quote back; no progress is counted per user turn."""
from __future__ import annotations

import yaml

from reference import parse_scenario
from reference.parts.guards.arguments import without_echoes
from reference.parts.guards.state import identifiers
from reference.parts.guards.wording import plainly, says_nothing
from reference.runs.runner import completed, interventions, run

BUILD = """
name: build-rerun-checklist-drift
title: The same failing build run again and again, only the checklist sent along changes
user: The production build is broken. Please fix it.
tools:
  - name: execute_command
    description: Execute a CLI command on the system.
    parameters: {type: object, properties: {command: {type: string}, task_progress: {type: string}}}
    rules: [{result: {data: "Failed to compile. Cannot find module '@/lib/api/payments' (page.tsx:4:27)"}}]
model:
  cycle:
    - call: {tool: execute_command, args: {command: npm run build, task_progress: "- [ ] Reproduce the failure"}}
    - call: {tool: execute_command, args: {command: npm run build, task_progress: "- [x] Reproduce the failure"}}
    - call: {tool: execute_command, args: {command: npm run build, task_progress: "- [x] Investigate the module"}}
    - call: {tool: execute_command, args: {command: npm run build, task_progress: "- [x] Fix the import path"}}
limits: {max_steps: 12}
expect: {completable: false, stop_reason: [same_result], model_calls: {max: 5}}
"""

MOVES = """
name: moves-back-to-back
title: Three different files moved one after another, each move answering nothing
user: Move a.txt, b.txt and c.txt into archive/.
tools:
  - name: run_shell_command
    description: Run a shell command in the project root.
    parameters: {type: object, properties: {command: {type: string}}, required: [command]}
    rules: [{result: {data: {stdout: "", exit_code: 0}}}]
model:
  script:
    - call: {tool: run_shell_command, args: {command: git mv a.txt archive/a.txt}}
    - call: {tool: run_shell_command, args: {command: git mv b.txt archive/b.txt}}
    - call: {tool: run_shell_command, args: {command: git mv c.txt archive/c.txt}}
    - answer: All three are in archive/.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 4}
"""

SEARCHES = """
name: search-reworded-no-results
title: One question searched in other words, each answer quoting its own query back
user: What is the record layout of the etf_code.mst master file?
tools:
  - name: web_search
    description: Search the web.
    annotations: {readOnlyHint: true, openWorldHint: false}
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    rules:
      - when: {query: etf_code.mst file format}
        result: {data: "No search results found for query: \\"etf_code.mst file format\\""}
      - when: {query: etf_code.mst master file layout}
        result: {data: "No search results found for query: \\"etf_code.mst master file layout\\""}
      - result: {data: "No search results found for query: \\"etf_code.mst columns field width\\""}
model:
  cycle:
    - call: {tool: web_search, args: {query: etf_code.mst file format}}
    - call: {tool: web_search, args: {query: etf_code.mst master file layout}}
    - call: {tool: web_search, args: {query: etf_code.mst columns field width}}
limits: {max_steps: 12}
expect: {completable: false, stop_reason: [same_result, no_progress], model_calls: {max: 5}}
"""


def _run(text: str):
    scenario = parse_scenario(yaml.safe_load(text), "test")
    return scenario, run(scenario, "guarded")


def test_a_build_run_again_with_only_its_checklist_changed_is_told_then_stopped():
    scenario, result = _run(BUILD)
    assert result.stop_reason.value == "same_result", result.stop_reason
    assert interventions(result) and result.model_calls <= 5


def test_writes_that_answer_nothing_are_told_apart_by_what_they_were_sent():
    scenario, result = _run(MOVES)
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_searches_that_differ_only_in_the_wording_they_quote_back_get_one_answer():
    scenario, result = _run(SEARCHES)
    assert result.stop_reason.value in ("same_result", "no_progress") and interventions(result)


def test_an_answer_in_text_is_judged_without_the_arguments_it_quotes_back():
    quoted = without_echoes('No results for "etf file layout".', {"query": "etf file layout"})
    assert quoted == 'No results for "".'
    assert without_echoes("Contents of https://status.example/i/8f1c?_=17:", {"url": "https://status.example/i/8f1c?_=17"}) \
        == "Contents of :"
    assert without_echoes("id 42: ok", {"id": "42"}) == "id 42: ok"  # shorter than four characters: found by chance
    assert without_echoes({"summary": "entity KB-101"}, {"sku": "KB-101"}) == {"summary": "entity KB-101"}  # not text


def test_a_command_line_is_one_whatever_its_quoting_and_spacing():
    a = plainly(['git log x --oneline | grep -i "449"'])
    assert a == plainly(["git log  x --oneline|grep -i '449'"])
    assert a != plainly(["git log y --oneline | grep -i 449"])


def test_an_answer_of_zeros_and_empty_texts_only_acknowledges():
    assert says_nothing({"stdout": "", "exit_code": 0}) and says_nothing([None, {"n": 0}])
    assert not says_nothing({"stdout": "", "exit_code": 1}) and not says_nothing({"in_stock": True})


def test_identifiers_are_words_with_a_digit_or_a_separator_inside():
    assert identifiers("Check KB-101, us-east-2 and src/app.py for Kubernetes") == {"kb-101", "us-east-2", "src/app.py"}


WEATHER = """
name: three-cities-alike
title: Three cities the user listed, each answering alike in text that names the city
user: What is the weather in Paris, Lyon and Nice today?
tools:
  - name: get_weather
    description: Get today's weather for a city.
    annotations: {readOnlyHint: true, openWorldHint: false}
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    rules:
      - {when: {city: Paris}, result: {data: "Weather in Paris: sunny, 21 C"}}
      - {when: {city: Lyon}, result: {data: "Weather in Lyon: sunny, 21 C"}}
      - {result: {data: "Weather in Nice: sunny, 21 C"}}
model:
  script:
    - call: {tool: get_weather, args: {city: Paris}}
    - call: {tool: get_weather, args: {city: Lyon}}
    - call: {tool: get_weather, args: {city: Nice}}
    - answer: Sunny and 21 C in all three.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 4}
"""

LISTED = """
name: services-a-listing-gave
title: Each service a listing gave, checked once, all healthy
user: Are all our services healthy?
tools:
  - name: list_services
    description: List the services.
    annotations: {readOnlyHint: true, openWorldHint: false}
    parameters: {type: object, properties: {}}
    rules: [{result: {data: {services: [billing, ledger, search, mailer]}}}]
  - name: get_health
    description: Get the health of a service.
    annotations: {readOnlyHint: true, openWorldHint: false}
    parameters: {type: object, properties: {service: {type: string}}, required: [service]}
    rules: [{result: {data: {healthy: true}}}]
model:
  script:
    - call: {tool: list_services, args: {}}
    - call: {tool: get_health, args: {service: billing}}
    - call: {tool: get_health, args: {service: ledger}}
    - call: {tool: get_health, args: {service: search}}
    - call: {tool: get_health, args: {service: mailer}}
    - answer: All four services are healthy.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 6}
"""


def test_subjects_the_user_named_are_separate_questions_even_when_they_answer_alike():
    scenario, result = _run(WEATHER)
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_subjects_an_earlier_answer_named_are_separate_questions_even_when_they_answer_alike():
    scenario, result = _run(LISTED)
    assert completed(scenario, result) and not interventions(result), interventions(result)


RANGE = """
name: skus-from-a-range
title: Five SKUs the user gave as a range, each in stock
user: Are KB-101 to KB-105 all in stock?
tools:
  - name: check_stock
    description: Whether a product is in stock.
    annotations: {readOnlyHint: true, openWorldHint: false}
    parameters: {type: object, properties: {sku: {type: string}}, required: [sku]}
    rules: [{result: {data: {in_stock: true}}}]
model:
  script:
    - call: {tool: check_stock, args: {sku: KB-101}}
    - call: {tool: check_stock, args: {sku: KB-102}}
    - call: {tool: check_stock, args: {sku: KB-103}}
    - call: {tool: check_stock, args: {sku: KB-104}}
    - call: {tool: check_stock, args: {sku: KB-105}}
    - answer: All five are in stock.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 6}
"""


def test_identifiers_the_agent_worked_out_itself_are_separate_questions_even_when_they_answer_alike():
    # KB-102, KB-103 and KB-104 are nowhere in the conversation: the agent expanded the user's range
    scenario, result = _run(RANGE)
    assert completed(scenario, result) and not interventions(result), interventions(result)


def test_a_bare_number_names_nothing_by_itself_but_an_identifier_of_letters_and_digits_does():
    from reference.parts.guards.state import _names_a_thing
    assert _names_a_thing("kb-102") and _names_a_thing("us-east-2") and _names_a_thing("a1234")
    assert not _names_a_thing("100") and not _names_a_thing("paris") and not _names_a_thing("2.5")


def test_writes_whose_answer_quotes_back_what_they_were_sent_are_told_apart_by_it(tmp_path):
    from tests.helpers.chat_logs import flags, tool
    notes = ["The passport expires on 2027-03-14", "The dentist is Dr. Okafor", "Mia is picked up at 15:15 on Wednesdays",
             "The cabin wifi password is fjord-2291", "The bike lock code is 4512"]
    steps = [("save_note", {"text": n, "tags": {"source": "user"}}, f"Saved: {n} in notebook personal") for n in notes]
    tools = [tool("save_note", "Store a note in long-term memory.", text="string", tags="object")]
    assert flags(tmp_path, tools, "Remember what I told you on the phone.", steps) == []


def test_writes_reworded_and_answered_alike_without_their_wording_ask_one_question(tmp_path):
    from tests.helpers.chat_logs import flags, tool
    asks = ["Please list the sources for the report", "Could you list the report's sources",
            "List every source the report needs", "Give me the list of sources for the report"]
    steps = [("delegate_task", {"coworker": "Researcher", "task": t}, "Sources: census 2022, labour survey 2023")
             for t in asks]
    tools = [tool("delegate_task", "Send a task to a coworker.", coworker="string", task="string")]
    assert any(rule == "same_result" for _, _, rule in flags(tmp_path, tools, "Write the report.", steps))


def test_an_answer_given_alike_to_every_spelling_is_one_answer_whatever_echo_one_spelling_left_out(tmp_path):
    """One currency pair asked four ways, the tool answering each, as it gave it, alike: the spelling one call sent
    and the tool spells back is left out of that call's answer alone, and must not make it another answer; two
    pairs, each answered with its own name, stay two answers."""
    from tests.helpers.chat_logs import flags, tool
    tools = [tool("rate_of", "Query the live exchange rate of a currency pair.", pair="string")]
    usd = {"pair": "USD/CNY", "mid": 7.1052, "date": "2026-02-28", "source": "CFETS"}
    steps = [("rate_of", {"pair": p}, usd) for p in ("USD/CNY", "usd/cny", "USDCNY", "USD-CNY")]
    assert (7, "stop", "same_result") in flags(tmp_path, tools, "How much is 1,280 dollars in yuan today?", steps)
    two = [("rate_of", {"pair": "USD/CNY"}, usd), ("rate_of", {"pair": "EUR/CNY"}, {**usd, "pair": "EUR/CNY"})]
    assert flags(tmp_path, tools, "How much are 1,280 dollars and 900 euros in yuan?", two) == []
