"""Exercise 3's red flags (stretch): file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex03b_ignores_volatile.py": ("test_polling_is_not_flagged",
                                   "was flagged as a loop"),
    "ex03b_empty_is_progress.py": ("test_empty_results_with_rephrasing_stop_for_no_progress",
                                    "empty results count as nothing new"),
    "ex03b_no_result_fingerprint.py": ("test_same_result_is_stopped",
                                        "fingerprint the results too"),
    "ex03b_quiet_count_never_resets.py": ("test_progress_resets_the_no_progress_count",
                                           "a step that brings something new starts the count again"),
    "ex03b_warnings_per_pattern.py": ("test_second_loop_of_another_kind_stops_the_run",
                                       "not one per pattern"),
    "ex03b_same_result_ignores_identity.py": ("test_batch_lookups_that_share_a_state_are_not_flagged",
                                               "was flagged as a loop"),
    "ex03b_strikes_per_call.py": ("test_calls_repeated_in_one_turn_are_one_lapse",
                                   "count the turn as one lapse"),
    "ex03b_metadata_is_news.py": ("test_metadata_is_not_news",
                                   "say the same thing"),
    "ex03b_turn_by_call_id.py": ("test_a_new_answer_is_a_new_turn_even_with_the_same_call_ids",
                                  "whatever its call ids"),
}
