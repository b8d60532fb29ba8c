"""The mock interview's logic (notebooks/mock_interview.ipynb): follow-ups revealed one at a time, and the
rubric scored by the candidate, starting from what the grader saw.

    interview = MockInterview(load_bank())
    interview.reveal()            # the next follow-up layer (question, then what a strong answer holds)
    interview.score(grade, {"stop_reason_health"})   # the grader's points plus the asked items ticked

`MockInterviewWidgets` puts buttons and checkboxes on it (ipywidgets 7 and 8); `static_text` is the whole
interview as text, for a page where widgets do not render.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..grade.report import Grade
from ..interview.bank import Bank, Layer

# The mock interview's own words, in the bank's two languages (the bank holds the questions and answers).
WORDS = {
    "follow_up": {"en": "Follow-up {n} of {of}", "zh": "追问 {n}/{of}"},
    "pressure": {"en": " (pressure)", "zh": "（压力题）"},
    "colon": {"en": ": ", "zh": "："},
    "strong": {"en": "A strong answer:", "zh": "好的回答包含："},
    "weak": {"en": "Weak: ", "zh": "弱回答："},
    "opener": {"en": "Opener: ", "zh": "开场："},
    "rubric": {"en": "Rubric (what to ask when a run cannot show it):", "zh": "评分项（运行无法体现时要追问的问题）："},
    "next": {"en": "next follow-up", "zh": "下一个追问"},
    "show": {"en": "show a strong answer", "zh": "看好的回答"},
    "start": {"en": "<p>Press <b>next follow-up</b> when the loop is written.</p>",
              "zh": "<p>循环写完后，点 <b>下一个追问</b>。</p>"},
    "last": {"en": "<p>That was the last follow-up. Score yourself below.</p>",
             "zh": "<p>追问到此结束，请在下面给自己打分。</p>"},
}


def word(key: str, lang: str, **kw: Any) -> str:
    return WORDS[key][lang].format(**kw)


@dataclass
class MockInterview:
    bank: Bank
    lang: str = "en"
    shown: int = 0  # follow-up layers revealed so far
    answers_shown: set[int] = field(default_factory=set)

    @property
    def opener(self) -> str:
        return self.bank.opener[self.lang]

    def reveal(self) -> Layer | None:
        """The next follow-up, or None once all five were asked."""
        if self.shown >= len(self.bank.layers):
            return None
        self.shown += 1
        return self.bank.layers[self.shown - 1]

    def layer_text(self, index: int, with_answer: bool = False) -> str:
        layer = self.bank.layers[index]
        lang = self.lang
        head = (word("follow_up", lang, n=index + 1, of=len(self.bank.layers))
                + (word("pressure", lang) if layer.pressure else "") + word("colon", lang))
        text = head + layer.question[lang]
        if with_answer:
            text += f"\n\n{word('strong', lang)}\n" + "\n".join(f"- {p[lang]}" for p in layer.strong_answer)
            text += f"\n\n{word('weak', lang)}{layer.weak_answer[lang]}"
        return text

    def score(self, grade: Grade | None, ticked: set[str]) -> tuple[int, list[str]]:
        """The total and its lines: each item keeps the points the grader gave it for what the runs showed (in
        full or in part); an item it could not show (`ask`) counts if the candidate ticked it (a self-assessment,
        said so); contradicted ones do not."""
        verdicts = {v.id: v for v in grade.rubric} if grade is not None else {}
        total, lines = 0, []
        for item in self.bank.rubric:
            v = verdicts.get(item.id)
            worth = item.points
            if v is not None and v.status in ("evidenced", "partly"):
                points, why = v.points, "shown by the runs" if v.status == "evidenced" else "partly shown by the runs"
            elif (v is None or v.status == "ask") and item.id in ticked:
                points, why = worth, "self-assessed: be ready for the follow-up"
            else:
                points = 0
                why = "contradicted by a run" if v is not None and v.status == "contradicted" else "not claimed"
            total += points
            lines.append(f"{item.title[self.lang]}: {points}/{worth} ({why})")
        flags = len(grade.red_flags) if grade is not None else 0
        if flags:
            total -= self.bank.scale.red_flag_cost * flags
            lines.append(f"red flags seen by the grader: -{self.bank.scale.red_flag_cost * flags}")
        return max(total, 0), lines


def static_text(interview: MockInterview) -> str:
    """The interview in full, for a page without widgets: the opener, every follow-up with its strong
    answer, and the rubric's questions to ask."""
    lang = interview.lang
    parts = [word("opener", lang) + interview.opener, ""]
    parts += [interview.layer_text(i, with_answer=True) + "\n" for i in range(len(interview.bank.layers))]
    parts += [word("rubric", lang)]
    parts += [f"- {item.title[lang]}{word('colon', lang)}{item.ask[lang]}" for item in interview.bank.rubric]
    return "\n".join(parts)


class MockInterviewWidgets:
    """Buttons for the follow-ups, checkboxes for the rubric, an output for the total."""

    def __init__(self, interview: MockInterview, grade: Grade | None = None):
        import ipywidgets as w  # lazy: only a notebook (or a test) builds widgets

        self.interview, self.grade = interview, grade
        lang = interview.lang
        self.next_button = w.Button(description=word("next", lang))
        self.answer_button = w.Button(description=word("show", lang))
        self.question = w.HTML(value=word("start", lang))
        self.ticks: dict[str, Any] = {item.id: w.Checkbox(value=False, description=item.title[interview.lang])
                                      for item in interview.bank.rubric}
        self.total = w.HTML()
        self.next_button.on_click(lambda _: self.next())
        self.answer_button.on_click(lambda _: self.show_answer())
        for box in self.ticks.values():
            box.observe(lambda _: self.rescore(), names="value")
        self.box = w.VBox([w.HBox([self.next_button, self.answer_button]), self.question,
                           w.VBox(list(self.ticks.values())), self.total])
        self.rescore()

    def next(self) -> None:
        layer = self.interview.reveal()
        if layer is None:
            self.question.value = word("last", self.interview.lang)
            self.next_button.disabled = True
            return
        self.question.value = f"<p>{_html(self.interview.layer_text(self.interview.shown - 1))}</p>"

    def show_answer(self) -> None:
        if self.interview.shown:
            self.question.value = f"<pre>{_html(self.interview.layer_text(self.interview.shown - 1, True))}</pre>"

    def rescore(self) -> None:
        ticked = {item for item, box in self.ticks.items() if box.value}
        total, lines = self.interview.score(self.grade, ticked)
        self.total.value = f"<p><b>{total}</b></p><pre>{_html(chr(10).join(lines))}</pre>"


def _html(text: str) -> str:
    import html

    return html.escape(text)
