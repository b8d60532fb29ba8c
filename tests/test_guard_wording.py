"""One text respelled (reference/parts/guards/wording.py): case, spacing and the punctuation around it aside, never
a leading sign or dash, nor the case of a quoted literal."""
from __future__ import annotations

import pytest

from reference.parts.guards.wording import respelled


@pytest.mark.parametrize("u, v, same", [
    ("How long?", "how long", True), ("¿Cuánto cuesta?", "cuánto cuesta", True), ("  Deploy  now. ", "deploy now", True),
    ("-5 degrees", "5 degrees", False), ("--force push", "force push", False),  # a sign, an option's mark
    ("SELECT * FROM users WHERE name = 'Bob'", "select * from users where name = 'bob'", False),  # a literal's case
    ("grep 'TODO' src", "grep 'todo' src", False), ("C++", "C", False)])
def test_a_text_respelled_is_case_spacing_and_closing_punctuation_aside_never_a_sign_or_a_literals_case(u, v, same):
    assert respelled(u, v) is same
