"""Load and validate the interviewer question bank (questions.yaml).

    from bank import load_bank
    bank = load_bank()            # questions.yaml next to this file
    bank.layers[4].pressure       # True

A bank that breaks the shape described at the top of questions.yaml is refused with a
``BankError`` naming every faulty field, e.g. ``layers[2].question.zh: missing (Simplified
Chinese text)``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional, Union

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

DEFAULT_PATH = Path(__file__).with_name("questions.yaml")
LANGS = ("en", "zh")
LANG_NAMES = {"en": "English text", "zh": "Simplified Chinese text"}


class BankError(ValueError):
    """The bank file is missing, unreadable, or does not have the expected shape."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _non_empty(value: str) -> str:
    if not value.strip():
        raise ValueError("empty text")
    return value


class Text(_Model):
    """One human-readable text in both languages."""

    en: str
    zh: str

    _check = field_validator("en", "zh")(_non_empty)

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGS:
            raise KeyError(f"unknown language {lang!r}; expected one of {LANGS}")
        return getattr(self, lang)


class RedFlag(Text):
    id: str


class Layer(_Model):
    id: str
    pressure: bool = False
    question: Text
    strong_answer: list[Text]
    signal: Text
    weak_answer: Text

    @field_validator("strong_answer")
    @classmethod
    def _points(cls, value: list[Text]) -> list[Text]:
        if not value:
            raise ValueError("needs at least one point")
        return value


class RubricItem(_Model):
    id: str
    bonus: bool = False
    points: int  # the item's weight: the grader gives it in full, the card prints it
    pass_line: bool = False  # part of the bare loop done right (the 60)
    title: Text
    earns: Text
    evidence: Literal["behaviour", "ask"]
    behaviour: Optional[Text] = None
    ask: Text

    @field_validator("id")
    @classmethod
    def _snake(cls, value: str) -> str:
        if not value.replace("_", "a").isalnum() or not value.islower():
            raise ValueError(f"id must be snake_case, got {value!r}")
        return value

    @model_validator(mode="after")
    def _behaviour_present(self) -> "RubricItem":
        if self.evidence == "behaviour" and self.behaviour is None:
            raise ValueError("evidence is 'behaviour' but the 'behaviour' check is missing")
        return self


class Scale(_Model):
    """The one definition of the pass line and the top, and what a red flag costs."""

    pass_line: int
    top: int
    red_flag_cost: int


class Answer(_Model):
    summary: Text
    points: list[Text]


class Answers(_Model):
    sixty: Answer
    ninety: Answer


class LessonQuestion(_Model):
    question: Text
    strong_answer: list[Text]
    red_flags: list[Text] = []


class Lesson(_Model):
    title: Text
    questions: list[LessonQuestion]


class Bank(_Model):
    title: Text
    opener: Text
    opener_variants: list[Text]
    layers: list[Layer]
    red_flags: list[RedFlag]
    rubric: list[RubricItem]
    scale: Scale
    answers: Answers
    lessons: dict[int, Lesson]

    @field_validator("layers")
    @classmethod
    def _five_layers(cls, value: list[Layer]) -> list[Layer]:
        if len(value) != 5:
            raise ValueError(f"exactly 5 layers expected, found {len(value)}")
        pressure = [layer.id for layer in value if layer.pressure]
        if len(pressure) != 1:
            raise ValueError(f"exactly one layer must have pressure: true, found {pressure or 'none'}")
        return value

    @field_validator("rubric")
    @classmethod
    def _nine_items(cls, value: list[RubricItem]) -> list[RubricItem]:
        if len(value) != 9:
            raise ValueError(f"exactly 9 rubric items expected, found {len(value)}")
        ids = [item.id for item in value]
        if len(set(ids)) != len(ids):
            raise ValueError(f"rubric ids must be unique: {ids}")
        return value

    @model_validator(mode="after")
    def _scale_adds_up(self) -> "Bank":
        top = sum(item.points for item in self.rubric if not item.bonus)
        line = sum(item.points for item in self.rubric if item.pass_line)
        if top != self.scale.top:
            raise ValueError(f"scale.top is {self.scale.top} but the items that are not a bonus add up to {top}")
        if line != self.scale.pass_line:
            raise ValueError(f"scale.pass_line is {self.scale.pass_line} but the pass_line items add up to {line}")
        return self

    @field_validator("lessons")
    @classmethod
    def _lessons_one_to_seven(cls, value: dict[int, Lesson]) -> dict[int, Lesson]:
        if sorted(value) != list(range(1, 8)):
            raise ValueError(f"lessons 1..7 expected, found {sorted(value)}")
        for number, lesson in value.items():
            if not lesson.questions:
                raise ValueError(f"lesson {number} has no questions")
        return value

    def lesson(self, number: int) -> Lesson:
        if number not in self.lessons:
            raise BankError(f"no lesson {number}; the bank has lessons {sorted(self.lessons)}")
        return self.lessons[number]


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _describe(error: dict) -> str:
    loc = error["loc"]
    where = _where(loc)
    last = loc[-1] if loc else None
    if error["type"] == "missing":
        what = f"missing ({LANG_NAMES[last]})" if last in LANG_NAMES else "missing"
    elif error["type"] == "extra_forbidden":
        what = "unknown field (not allowed)"
    elif last in LANG_NAMES and error["type"] == "value_error":
        what = f"empty ({LANG_NAMES[last]} must not be blank)"
    else:
        what = error["msg"].removeprefix("Value error, ")
    return f"{where}: {what}"


SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the same documents, parsed ~5x faster by libyaml


def validate_bank(data: object, source: Union[str, Path] = "<data>") -> Bank:
    """Validate already-parsed YAML data; raise BankError naming each faulty field."""
    if not isinstance(data, dict):
        raise BankError(f"{source}: the top level must be a mapping, got {type(data).__name__}")
    try:
        return Bank.model_validate(data)
    except ValidationError as exc:
        lines = [_describe(err) for err in exc.errors()]
        raise BankError(f"{source}: invalid question bank\n  " + "\n  ".join(lines)) from None


def load_bank(path: Union[str, Path, None] = None) -> Bank:
    """Load questions.yaml (or ``path``) with YAML's safe loader (libyaml's where installed) and validate it."""
    path = Path(path) if path is not None else DEFAULT_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BankError(f"{path}: cannot read the question bank ({exc.strerror})") from None
    try:
        data = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise BankError(f"{path}: not valid YAML: {exc}") from None
    return validate_bank(data, path)


if __name__ == "__main__":
    import sys

    try:
        bank = load_bank(sys.argv[1] if len(sys.argv) > 1 else None)
    except BankError as exc:
        sys.exit(str(exc))
    print(f"ok: {len(bank.layers)} layers, {len(bank.red_flags)} red flags, "
          f"{len(bank.rubric)} rubric items, lessons {sorted(bank.lessons)}")
