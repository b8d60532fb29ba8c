"""Exercise 5's red flags (core): file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex05_stack_trace_to_model.py": ("test_no_exception_text_or_secret_reaches_the_model",
                                      "leaked to the model"),
    "ex05_exception_escapes.py": ("test_tool_exceptions_never_escape_the_loop",
                                   "your loop raised RuntimeError"),
    "ex05_retries_everything.py": ("test_does_not_retry_what_cannot_succeed",
                                    "it is not retryable"),
    "ex05_retry_decorator_swallows.py": ("test_flaky_tool_recovers_without_the_model_noticing",
                                          "the retry never fired"),
    "ex05_http200_is_data.py": ("test_business_failure_behind_http_200_is_an_error",
                                 "was read as data"),
    "ex05_trusts_retryable_flag.py": ("test_a_client_error_is_not_retried_whatever_the_tool_says",
                                       "not the tool's own retryable flag"),
    "ex05_real_sleep.py": ("test_backoff_waits_on_the_simulated_clock",
                            "never sleep for real"),
}
