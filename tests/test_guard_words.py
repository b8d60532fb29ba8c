"""What a word is for the guard's rules that count words: UAX #29's breaks in scripts written without spaces,
white space elsewhere (reference/parts/guards/words.py)."""
from __future__ import annotations

import pytest

from reference.parts.guards.own import passages
from reference.parts.guards.responses import reports
from reference.parts.guards.words import words


@pytest.mark.parametrize("text, count", [
    ("订单正在打包，尚未发货。", 10),  # one word to an ideograph, punctuation none
    ("ご注文は梱包中です", 9),
    ("テスト", 1),  # a katakana run is one word
    ("A1234号", 2),
    ("Order A1234 is being packed, not shipped yet.", 8),
    ("w_101", 1), ("550e8400-e29b-41d4-a716-446655440000", 1), ("in_progress", 1),  # one token of a spaced script
])
def test_a_word_is_an_ideograph_or_a_kana_run_where_a_script_writes_no_spaces_and_a_spaced_run_elsewhere(text, count):
    assert len(words(text)) == count


@pytest.mark.parametrize("answer", ["订单正在打包，尚未发货。", "ご注文は梱包中で、まだ発送されていません。",
                                    "Order A1234 is being packed, not shipped yet."])
def test_a_status_sentence_in_any_script_is_content_not_an_acknowledgement(answer):
    assert reports(answer)


@pytest.mark.parametrize("answer", ["w_101", "Saved.", "in_progress"])
def test_a_single_token_or_a_short_word_stays_an_acknowledgement(answer):
    assert not reports(answer)


def test_a_post_without_spaces_has_passages_of_eight_words_as_a_spaced_one_does():
    assert passages("订单正在打包，尚未发货。") and passages("the order is being packed and not shipped yet")
