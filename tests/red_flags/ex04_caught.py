"""Exercise 4's red flags: file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex04_max_steps_string.py": ("test_answer_is_never_just_max_steps_reached", "the user would read only"),
    "ex04_lists_every_call.py": ("test_failed_calls_are_not_obtained", "is not a successful result"),
    "ex04_forgets_unfinished.py": ("test_unfinished_items_match_the_checklist", "unfinished should be"),
    "ex04_invents_answer.py": ("test_answer_states_no_value_that_no_tool_returned", "invented"),
    "ex04_keyerror_on_rare_stop.py": ("test_every_stop_reason_gets_fitting_next_steps",
                                      "your degrade raised KeyError"),
    "ex04_max_steps_retry_later.py": ("test_every_stop_reason_gets_fitting_next_steps",
                                      "would stop at the same place"),
    "ex04_facts_once_per_process.py": ("test_two_runs_in_one_process_share_nothing",
                                       "one run's facts must not leak into the next"),
    "ex04_answer_quotes_model.py": ("test_answer_states_no_value_that_no_tool_returned", "which no tool result"),
}
