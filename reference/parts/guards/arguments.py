"""Lesson 3: what a call's arguments say about it: their leaves, the subject they ask about, and the echoes of
them that a result carries.

A result's echo of its own call (the query, offset or ids it was asked with, sent back) is the question, not
the answer: two results that differ only there say the same thing, and neither brings news. The subject is
what a call asks about, so that three phrasings of one search are one question and four SKUs are four.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core import jsontext
from ...core.canonical import _number, clean_text
from .metadata import key_name
from .wording import unquoted
from .words import words

_sorted_json = jsontext.dumps(ensure_ascii=False, sort_keys=True)  # made once (reference/core/jsontext.py)
# Characters a text argument must pass to be cut from a text answer as its echo: a shorter one ("ok", "main") is
# as likely the answer's own word as the call's.
_QUOTED = 3


def argument_leaves(arguments: Any, key: str = "") -> list[tuple[str, Any]]:
    """(key name, canonical value) of every leaf of a call's arguments, at any depth."""
    if isinstance(arguments, dict):
        return [leaf for k, v in arguments.items() for leaf in argument_leaves(v, key_name(k))]
    if isinstance(arguments, list):
        return [leaf for v in arguments for leaf in argument_leaves(v, key)]
    return [(key, arguments)] if arguments is not None else []


def without_echoes(payload: Any, arguments: Any, spelled: Any = None) -> Any:
    """The payload without what the call put there: an entry whose value is one of its text arguments, or whose key
    and value are one of its arguments (`"offset": 20`); in plain text, a text argument over `_QUOTED` characters,
    in its canonical form or as the model spelled it, case aside."""
    leaves = argument_leaves(arguments)
    if isinstance(payload, str):  # an answer in text: the wording it quotes back is the question, not the answer
        said = [*leaves, *argument_leaves(spelled)]
        return unquoted(payload, [v for _, v in said if isinstance(v, str) and len(v.strip()) > _QUOTED])
    if not leaves:
        return payload
    texts = {clean_text(v).casefold() for _, v in leaves if isinstance(v, str) and v.strip()}
    pairs = {(k, _number(v)) for k, v in leaves if isinstance(v, (int, float, str))}

    def echoed(key: Any, value: Any) -> bool:
        if isinstance(value, str):
            return clean_text(value).casefold() in texts
        return isinstance(value, (int, float)) and (key_name(key), _number(value)) in pairs

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if not echoed(k, v)}
        return [walk(v) for v in value] if isinstance(value, list) else value
    return walk(payload)


def subject_of(arguments: Any, positions: bool = True) -> str:
    """What a call asks about: its canonical arguments without free wording (text of two words or more), so
    that three phrasings of one search share a subject and four SKUs have four; without `positions`, without
    numbers too (a page, an offset say where in a list, not what about) and case-folded, so that pages 2 and 3
    share one, and "Kubernetes" and "kubernetes" do."""
    def left_out(value: Any) -> bool:
        wording = isinstance(value, str) and len(words(value)) >= 2
        return wording or not positions and isinstance(value, (int, float)) and not isinstance(value, bool)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if not left_out(v)}
        if isinstance(value, list):
            return [walk(v) for v in value if not left_out(v)]
        return value if positions or not isinstance(value, str) else value.casefold()
    return _sorted_json(walk(arguments))


def names_nothing(arguments: Any, schema: Any) -> bool:
    """Does a call name no target of its own: every argument empty, a boolean, or a choice the schema closes
    (`enum`, `const`)? Such a call acts on what the tool itself carries (a cursor, a running process)."""
    if arguments is None:
        return False  # not a JSON object: nothing is known about it

    def walk(value: Any, sub: Any) -> bool:
        sub = sub if isinstance(sub, Mapping) else {}
        if isinstance(value, dict):
            props = sub.get("properties")
            props = props if isinstance(props, Mapping) else {}
            return all(walk(v, props.get(k)) for k, v in value.items())
        if isinstance(value, list):
            return all(walk(v, sub.get("items")) for v in value)
        if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
            return True
        return "enum" in sub or "const" in sub
    return walk(arguments, schema)
