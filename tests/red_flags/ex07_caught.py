"""Exercise 7's red flags: file -> (the test that must catch it, text its failure message must contain)."""

CAUGHT_BY = {
    "ex07_offers_every_tool.py": ("test_the_router_offers_only_the_intents_tools", "UI decision made in code"),
    "ex07_model_marks_done.py": ("test_only_a_validated_result_ticks_the_checklist", "only the runtime ticks"),
    "ex07_untyped_state.py": ("test_the_state_is_typed_and_refuses_what_it_does_not_know", "untyped dict"),
}
