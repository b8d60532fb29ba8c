"""The kit's objects as plain JSON and back: messages, turns, results, tool outcomes, exceptions.

A candidate's loop runs in another process (reference/sandbox/child.py) and talks to the grader over
JSON (reference/sandbox/remote.py): the same messages must arrive, field for field, whatever the
transport. `encode` turns a value into JSON-able data; `decode` turns it back.

Decoding never runs the sender's code and never imports: only the classes on an explicit allow-list
(`allow(...)`, called by the code that sends them: reference/sandbox/child.py) are rebuilt, field by field,
without calling their `__init__`; any other dataclass comes back as a `SimpleNamespace`, another
exception as a `RemoteError`, anything else the JSON cannot carry as its `repr`.
"""
from __future__ import annotations

import builtins
import dataclasses
import enum
from types import SimpleNamespace
from typing import Any

TAGS = ("__dc__", "__enum__", "__tuple__", "__map__", "__exc__", "__repr__")
MAX_DEPTH = 200  # deeper than any kit object; a self-referencing structure is cut here
MAX_TEXT = 4000  # an exception's message (or a repr) longer than this is cut, with its length said
ALLOWED: dict[str, type] = {}  # "module:qualname" -> the class decode may rebuild


def allow(*classes: type) -> None:
    """Let decode rebuild these classes (dataclasses, enums, exceptions) from what the other side names."""
    ALLOWED.update((_name(cls), cls) for cls in classes)


def encode(value: Any, depth: int = 0) -> Any:
    if isinstance(value, enum.Enum):  # before str: StopReason is a str too
        return {"__enum__": _name(type(value)), "value": encode(value.value, depth + 1)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if depth > MAX_DEPTH:
        return {"__repr__": "<nested too deeply>"}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not any(k in TAGS for k in value):
            return {k: encode(v, depth + 1) for k, v in value.items()}
        return {"__map__": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if isinstance(value, BaseException):
        return encode_exception(value, depth)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)}
        return {"__dc__": _name(type(value)), "fields": fields}
    return {"__repr__": cut(_safe_repr(value))}


def encode_exception(exc: BaseException, depth: int = 0) -> dict[str, Any]:
    """Its class, its text and its plain attributes (the kit's errors carry theirs), every text cut."""
    attrs = {k: _scalar(v) for k, v in vars(exc).items() if not k.startswith("_")
             and isinstance(v, (str, int, float, bool, type(None)))}
    return {"__exc__": _name(type(exc)), "type": type(exc).__name__, "message": cut(_safe_str(exc)),
            "args": [_scalar(a) if isinstance(a, (str, int, float, bool, type(None))) else cut(_safe_repr(a))
                     for a in exc.args[:8]], "attrs": attrs}


def _scalar(value: Any) -> Any:
    return cut(str(value)) if isinstance(value, str) else value


def decode(data: Any) -> Any:
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "__tuple__" in data:
        return tuple(decode(v) for v in data["__tuple__"])
    if "__map__" in data:
        return {_hashable(decode(k)): decode(v) for k, v in data["__map__"]}
    if "__repr__" in data:
        return str(data["__repr__"])
    if "__enum__" in data:
        cls = kit_class(data["__enum__"])
        value = decode(data["value"])
        try:
            return cls(value) if cls is not None and issubclass(cls, enum.Enum) else value
        except ValueError:
            return value
    if "__dc__" in data:
        fields = {k: decode(v) for k, v in data.get("fields", {}).items()}
        cls = kit_class(data["__dc__"])
        if cls is None or not dataclasses.is_dataclass(cls):
            return SimpleNamespace(**fields)
        obj = object.__new__(cls)
        for f in dataclasses.fields(cls):
            if f.name in fields:
                object.__setattr__(obj, f.name, fields[f.name])
            elif f.default is not dataclasses.MISSING:
                object.__setattr__(obj, f.name, f.default)
            elif f.default_factory is not dataclasses.MISSING:
                object.__setattr__(obj, f.name, f.default_factory())
        return obj
    if "__exc__" in data:
        return decode_exception(data)
    return {k: decode(v) for k, v in data.items()}


class RemoteError(Exception):
    """An exception from the other process whose class is not rebuilt here: its name and text."""

    def __init__(self, type_name: str, message: str):
        super().__init__(message)
        self.type_name = type_name
        self.message = message


def decode_exception(data: dict[str, Any]) -> BaseException:
    """The kit's exceptions and Python's built-in ones come back as themselves; others as RemoteError."""
    name = str(data.get("__exc__", ""))
    cls = kit_class(name)
    module, _, qualname = name.partition(":")
    if cls is None and module == "builtins" and qualname.isidentifier():
        cls = getattr(builtins, qualname, None)
    args = [decode(a) for a in data.get("args", [])]
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        return RemoteError(str(data.get("type", "Exception")), str(data.get("message", "")))
    try:
        exc = cls.__new__(cls, *args)
        exc.args = tuple(args)
        for key, value in data.get("attrs", {}).items():
            setattr(exc, key, decode(value))
    except Exception:  # an exception class with an unusual constructor: keep its name and text
        return RemoteError(str(data.get("type", "Exception")), str(data.get("message", "")))
    return exc


def kit_class(name: Any) -> Any:
    """The class `module:qualname` if it is on the allow-list, else None: looked up, never imported."""
    return ALLOWED.get(name) if isinstance(name, str) else None


def cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters in all)"


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, tuple, type(None))) else repr(value)


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a __str__ that raises: say so rather than fail to report
        return f"<{type(exc).__name__}: its message could not be read>"


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:
        return f"<{type(value).__name__}>"
