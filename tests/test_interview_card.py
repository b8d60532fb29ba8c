"""The interviewer question bank (reference/interview/questions.yaml) and the printable card."""
from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from reference.cli import main
from reference.interview import card
from reference.interview.bank import DEFAULT_PATH as BANK_FILE
from reference.interview.bank import LANGS, BankError, load_bank, validate_bank
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def raw() -> dict:
    return yaml.safe_load(BANK_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def _texts(node, path="bank"):
    """Every {en, zh} pair in the raw YAML, with its path."""
    if isinstance(node, dict):
        if "en" in node or "zh" in node:
            yield path, node
        for key, value in node.items():
            if key not in LANGS:
                yield from _texts(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _texts(value, f"{path}[{i}]")


def test_every_text_has_both_languages(raw):
    pairs = list(_texts(raw))
    assert len(pairs) > 200
    for path, pair in pairs:
        for lang in LANGS:
            assert isinstance(pair.get(lang), str) and pair[lang].strip(), f"{path}.{lang} missing or empty"
        assert HAN.search(pair["zh"]), f"{path}.zh has no Chinese characters"
        assert not HAN.search(pair["en"]), f"{path}.en contains Chinese characters"


def test_labels_have_both_languages():
    for key, pair in card.LABELS.items():
        assert set(pair) == set(LANGS), key
        assert all(pair[lang].strip() for lang in LANGS), key


def test_five_layers_one_pressure(bank):
    assert len(bank.layers) == 5
    assert [layer.pressure for layer in bank.layers] == [False] * 4 + [True]
    assert "40" in bank.layers[-1].question.en
    assert len({layer.id for layer in bank.layers}) == 5
    assert all(layer.strong_answer for layer in bank.layers)


def test_nine_rubric_items_each_with_an_ask(bank):
    assert len(bank.rubric) == 9
    for item in bank.rubric:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", item.id)
        assert item.ask.en.strip() and item.ask.zh.strip()
        assert item.evidence in ("behaviour", "ask")
        if item.evidence == "behaviour":
            assert item.behaviour is not None
    assert {item.evidence for item in bank.rubric} == {"behaviour", "ask"}


def test_lessons_one_to_seven(bank):
    assert sorted(bank.lessons) == list(range(1, 8))
    for lesson in bank.lessons.values():
        assert lesson.questions and all(q.strong_answer for q in lesson.questions)


def test_no_known_wrong_claims(raw):
    text = BANK_FILE.read_text(encoding="utf-8")
    assert not re.search(r"\d+(\.\d+)?\s*%", text), "the bank quotes no percentages"
    bjx = [pair["en"] for _, pair in _texts(raw) if "BJX" in pair["en"]]
    assert bjx and all("Mexico" in t for t in bjx)
    typeerror = [pair["en"] for _, pair in _texts(raw) if '"0.95"' in pair["en"]]
    assert typeerror and all("TypeError" in t for t in typeerror)


@pytest.mark.parametrize("lang", LANGS)
def test_markdown_renders(bank, lang):
    md = card.render_markdown(bank, lang)
    assert md.startswith("# ")
    assert bank.opener[lang] in md
    for layer in bank.layers:
        assert layer.question[lang] in md
    for item in bank.rubric:
        assert item.title[lang] in md
    assert bank.answers.sixty.summary[lang] in md and bank.answers.ninety.summary[lang] in md
    assert md.count("\n| ") >= 11  # header + 9 rubric rows + total


@pytest.mark.parametrize("lang", LANGS)
def test_html_renders_with_print_css(bank, lang):
    page = card.render_html(bank, lang)
    assert page.startswith("<!DOCTYPE html>")
    assert "@page { size: A4; margin: 12mm }" in page
    # two A4 pages (measured: headless chromium's print-to-pdf gives two pages in each language, and the
    # content does not fit one at a readable size): the card says so and breaks before the red flags
    assert card._h(card.label("sheets", lang)) in page and f'<h2 class="page2">{card._h(card.label("flags", lang))}</h2>' in page
    assert f'lang="{"zh-Hans" if lang == "zh" else "en"}"' in page
    assert "<script" not in page and "http" not in page.split("<body>")[0]
    for item in bank.rubric:
        assert card._h(item.title[lang]) in page
    assert page.count('<td class="score">') == 10
    assert card._h(bank.layers[-1].question[lang]) in page
    assert "<code>while True</code>" in page or lang == "zh"


def test_html_escapes_text(bank):
    data = bank.model_dump()
    data["opener"]["en"] = 'Write <script>alert("x")</script> & stop'
    page = card.render_html(validate_bank(data), "en")
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; stop" in page


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("number", range(1, 8))
def test_lesson_filter(bank, lang, number):
    lesson = bank.lessons[number]
    others = [q for n, other in bank.lessons.items() if n != number for q in other.questions]
    for render in (card.render_markdown, card.render_html):
        out = render(bank, lang, lesson=number)
        for q in lesson.questions:
            assert card._h(q.question[lang]) in out or q.question[lang] in out
        assert all(q.question[lang] not in out and card._h(q.question[lang]) not in out for q in others)
        assert bank.layers[0].question[lang] not in out
        assert lesson.title[lang] in out or card._h(lesson.title[lang]) in out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_loopkit_card_renders_each_language_and_format(bank, lang, fmt, tmp_path, capsys):
    """`loopkit card` is the one front-end: to stdout, and to a file with -o, the renderer's own text."""
    assert main(["card", "--lang", lang, "--format", fmt]) == 0
    printed = capsys.readouterr().out
    render = card.render_html if fmt == "html" else card.render_markdown
    assert printed == render(bank, lang), f"loopkit card --lang {lang} --format {fmt} should print the card"
    assert printed.startswith("<!DOCTYPE html>" if fmt == "html" else "# ")
    out = tmp_path / f"card.{fmt}"
    assert main(["card", "--lang", lang, "--format", fmt, "--lesson", "6", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render(bank, lang, 6)
    assert f"wrote {out}" in capsys.readouterr().out


def test_loopkit_card_refuses_an_unknown_lesson_or_language(capsys):
    assert main(["card", "--lang", "en", "--lesson", "9"]) == 2
    assert "no lesson 9" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["card", "--lang", "fr"])
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_the_renderer_has_no_command_line_of_its_own():
    assert not hasattr(card, "main"), "`loopkit card` is the one front-end (reference/cli/card.py)"


def test_unknown_lesson_or_language_refused(bank):
    with pytest.raises(BankError, match="no lesson 8"):
        card.render_markdown(bank, "en", lesson=8)
    with pytest.raises(ValueError, match="lang"):
        card.render_html(bank, "fr")


def _broken(raw, mutate) -> str:
    data = copy.deepcopy(raw)
    mutate(data)
    with pytest.raises(BankError) as info:
        validate_bank(data, "questions.yaml")
    return str(info.value)


def test_missing_zh_is_refused_naming_the_field(raw):
    msg = _broken(raw, lambda d: d["layers"][2]["question"].pop("zh"))
    assert "layers[2].question.zh" in msg and "Simplified Chinese" in msg


def test_empty_or_missing_texts_are_refused(raw):
    msg = _broken(raw, lambda d: d["rubric"][4]["ask"].update(en="  "))
    assert "rubric[4].ask.en" in msg and "empty" in msg
    msg = _broken(raw, lambda d: d["lessons"][7]["questions"][0]["strong_answer"][1].pop("zh"))
    assert "lessons[7].questions[0].strong_answer[1].zh" in msg


def test_shape_errors_are_refused(raw):
    assert "exactly 5 layers" in _broken(raw, lambda d: d["layers"].pop())
    assert "exactly one layer must have pressure" in _broken(raw, lambda d: d["layers"][4].pop("pressure"))
    assert "exactly 9 rubric items" in _broken(raw, lambda d: d["rubric"].pop())
    msg = _broken(raw, lambda d: d["rubric"][0].update(evidence="vibes"))
    assert "rubric[0].evidence" in msg
    msg = _broken(raw, lambda d: d["rubric"][0].pop("behaviour"))
    assert "rubric[0]" in msg and "behaviour" in msg
    assert "unknown field" in _broken(raw, lambda d: d["layers"][0].update(notes={"en": "x", "zh": "y"}))
    assert "lessons 1..7" in _broken(raw, lambda d: d["lessons"].pop(6))


def test_load_bank_errors(tmp_path):
    with pytest.raises(BankError, match="cannot read"):
        load_bank(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("layers: [unclosed\n", encoding="utf-8")
    with pytest.raises(BankError, match="not valid YAML"):
        load_bank(bad)
    bad.write_text("- a list\n", encoding="utf-8")
    with pytest.raises(BankError, match="top level must be a mapping"):
        load_bank(bad)
