"""Exercise 3's red flags (core): file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex03_raw_json_fingerprint.py": ("test_noisy_repeats_are_caught", "the same search written differently"),
    "ex03_stops_without_intervening.py": ("test_cooperative_model_completes_after_one_intervention", "a guard that stops at the first detection without intervening"),
    "ex03_never_interrupts.py": ("test_exact_repeat_is_stopped_after_one_intervention", "must be stopped for repeated_call"),
    "ex03_flags_paging.py": ("test_paging_is_not_flagged", "was flagged as a loop"),
    "ex03_consecutive_only.py": ("test_alternation_is_stopped", "misses it"),
    "ex03_casefolds_everything.py": ("test_genuinely_different_arguments_keep_different_fingerprints", "case-folding it merges calls"),
    "ex03_no_alternation_detector.py": ("test_alternation_is_stopped_as_alternation_when_repeats_are_allowed", "the pattern is the pair"),
    "ex03_ignores_intent.py": ("test_intent_thresholds_allow_a_troubleshooting_recheck", "use the thresholds of the scenario's intent"),
    "ex03_evidence_without_count.py": ("test_interventions_carry_evidence_options_and_an_instruction", "how many times the call came"),
    "ex03_wall_clock_today.py": ("test_relative_dates_resolve_on_the_scenario_clock", "whatever the machine's date"),
    "ex03_guard_per_intent.py": ("test_two_runs_in_one_process_share_nothing", "one run's history must not leak into the next"),
}
