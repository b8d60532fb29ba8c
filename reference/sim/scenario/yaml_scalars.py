"""Scalars of a scenario file: YAML 1.1 words and numbers as PyYAML's SafeLoader reads them, plus exponents
as JSON writes them (`1e3`, `0.5e6`: text for YAML 1.1, a number for an author); numbers as JSON has
them (integers of at most MAX_INT_DIGITS digits, finite floats); dates and times left as text."""
from __future__ import annotations

import math
import re
from typing import Any

MAX_INT_DIGITS = 100

INT = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
                 r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$")
FLOAT = re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
                   r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
                   r"|[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9]+)[eE][-+]?[0-9]+)$")  # and 1e3, 0.5e6, as JSON writes them
WORDS: dict[str, Any] = {**{w: True for w in "yes Yes YES true True TRUE on On ON".split()},
                         **{w: False for w in "no No NO false False FALSE off Off OFF".split()},
                         **{w: None for w in ("~", "null", "Null", "NULL")}}
NUMBER_START = frozenset("0123456789+-.")


def plain(value: str) -> Any:
    """An unquoted scalar: null, a boolean, a number or text (a date stays text: JSON has no dates)."""
    if value == "":
        return None
    if value[0] in NUMBER_START:
        if INT.match(value):
            return to_int(value)
        if FLOAT.match(value):
            return to_float(value)
        return value
    return WORDS.get(value, value)


def to_int(text: str) -> int:
    digits = text.replace("_", "").lstrip("+-")
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(digits):,} digits; at most {MAX_INT_DIGITS} are allowed")
    sign = -1 if text.startswith("-") else 1
    try:
        if digits.startswith("0b"):
            return sign * int(digits[2:], 2)
        if digits.startswith("0x"):
            return sign * int(digits[2:], 16)
        if ":" in digits:  # sexagesimal, 1:30 = 90
            total = 0
            for part in digits.split(":"):
                total = total * 60 + int(part)
            return sign * total
        if digits.startswith("0") and digits != "0":
            return sign * int(digits, 8)
        return sign * int(digits)
    except ValueError:
        raise ValueError(f"expected an integer, got {text!r}") from None


def to_float(text: str) -> float:
    lowered = text.replace("_", "").lower()
    try:
        if lowered.endswith((".nan", ".inf")):
            number = math.nan
        elif ":" in lowered:
            number = 0.0
            for part in lowered.lstrip("+-").split(":"):
                number = number * 60 + float(part)
            number = -number if lowered.startswith("-") else number
        else:
            number = float(lowered)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, got {text} (JSON has no infinity or NaN)")
    return number
