"""Exercise 2's red flags: file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex02_steps_only.py": ("test_token_blowup_stops_on_the_token_budget", "stop reason max_steps"),
    "ex02_checked_after.py": ("test_never_overshoots_when_the_next_request_would", "an overshoot"),
    "ex02_ignores_tool_time.py": ("test_slow_tools_stops_before_the_slow_tool_runs", "tool time"),
    "ex02_output_tokens_only.py": ("test_next_request_estimate_covers_what_the_provider_bills", "the provider billed"),
    "ex02_no_tool_schemas.py": ("test_next_request_estimate_covers_what_the_provider_bills",
                                "the tool schemas, sent again with every request"),
    "ex02_output_at_input_rate.py": ("test_next_request_estimate_covers_what_the_provider_bills",
                                     "at the output rate, not the input rate"),
    "ex02_model_time_free.py": ("test_slow_model_trips_the_time_budget_before_the_request", "18 s of model time"),
    "ex02_spent_input_only.py": ("test_spent_reads_the_ledger_and_the_clock", "output tokens count too"),
    "ex02_class_tally.py": ("test_two_runs_in_one_process_share_nothing",
                            "one run's budget must not carry anything into the next"),
    "ex02_tool_times_shared_across_runs.py": ("test_two_runs_in_one_process_share_nothing", "must not carry into the next run's estimates"),
    "ex02_counts_the_loops_step.py": ("test_the_step_limit_counts_the_requests_in_the_ledger",
                                      "the step limit counts the run's requests"),
    "ex02_time_zero_sends_a_request.py": ("test_with_no_time_left_nothing_starts", "nothing takes none"),
}
