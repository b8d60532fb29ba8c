"""Exercise 3's red flags: file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex03_raw_json_fingerprint.py": ("test_noisy_repeats_are_caught", "the same search written differently"),
    "ex03_stops_without_intervening.py": ("test_cooperative_model_completes_after_one_intervention",
                                          "a guard that stops at the first detection without intervening"),
    "ex03_never_interrupts.py": ("test_exact_repeat_is_stopped_after_one_intervention",
                                 "must be stopped for repeated_call"),
    "ex03_flags_paging.py": ("test_paging_is_not_flagged", "was flagged as a loop"),
    "ex03_consecutive_only.py": ("test_alternation_is_stopped", "misses it"),
    "ex03_ignores_volatile.py": ("test_polling_is_not_flagged", "was flagged as a loop"),
    "ex03_empty_is_progress.py": ("test_empty_results_with_rephrasing_stop_for_no_progress",
                                  "empty results count as nothing new"),
    "ex03_no_result_fingerprint.py": ("test_same_result_is_stopped", "fingerprint the results too"),
    "ex03_casefolds_everything.py": ("test_genuinely_different_arguments_keep_different_fingerprints",
                                     "case-folding it merges calls"),
}
