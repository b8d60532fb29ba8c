"""Exercise 5's red flags (stretch): file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex05b_please_try_again.py": ("test_bad_date_is_fixed_after_one_actionable_message",
                                   "is not actionable"),
    "ex05b_bad_args_open_circuit.py": ("test_invalid_arguments_do_not_open_the_circuit",
                                        "the caller's mistake"),
    "ex05b_failures_never_reset.py": ("test_a_success_resets_the_failure_count",
                                       "starts the count again"),
    "ex05b_breaker_per_process.py": ("test_two_runs_in_one_process_share_nothing",
                                      "must not carry into the next"),
}
