"""Exercise 6's red flags: file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex06_consecutive_only.py": ("test_a_cycle_is_read_across_other_tools_calls", "A-B-A-B"),
    "ex06_retries_as_duplicates.py": ("test_retries_in_code_are_not_duplicate_calls", "Retries are attempts"),
    "ex06_loses_call_ids.py": ("test_the_case_keeps_the_tool_call_ids", "tool-call ids"),
    "ex06_pins_the_bad_run.py": ("test_the_case_fails_on_the_naive_loop_and_passes_on_the_guarded_one",
                                 "the naive loop passes the case"),
    "ex06_mean_steps.py": ("test_fleet_metrics_over_the_catalogue", "nearest-rank 99th percentile"),
    "ex06_first_hit_wins.py": ("test_on_one_step_an_error_storm_outranks_a_repeat_whatever_the_call_order", "the tie order decides"),
}
