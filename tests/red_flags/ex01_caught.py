"""Exercise 1's red flags: file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex01_forgets_assistant_message.py": (
        "test_appends_the_assistant_tool_call_message_before_the_results",
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."),
    "ex01_while_true.py": ("test_repeat_scenario_stops_at_the_step_limit", "the step limit was 8"),
    "ex01_first_call_only.py": ("test_answers_every_parallel_tool_call", "did not have response messages"),
    "ex01_max_steps_string.py": ("test_repeat_scenario_stops_at_the_step_limit", "not a RunResult"),
    "ex01_raises_tool_errors.py": ("test_a_failing_tool_does_not_crash_the_loop", "your loop raised"),
    "ex01_step_per_tool_call.py": ("test_one_model_request_per_step", "one step is one model request"),
    "ex01_history_default.py": ("test_two_runs_in_one_process_share_nothing", "state leaks"),
    "ex01_steps_per_tool_call.py": ("test_a_turn_with_parallel_calls_is_one_step", "one step is one model request however many calls"),
}
