"""Exercise 2's red flags: file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex02_steps_only.py": ("test_token_blowup_stops_on_the_token_budget", "stop reason max_steps"),
    "ex02_checked_after.py": ("test_never_overshoots_when_the_next_request_would", "an overshoot"),
    "ex02_ignores_tool_time.py": ("test_slow_tools_stops_before_the_slow_tool_runs", "tool time"),
    "ex02_output_tokens_only.py": ("test_next_request_estimate_covers_what_the_provider_bills", "the provider billed"),
}
