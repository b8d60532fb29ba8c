"""Scenario YAML read defensively: a hostile file gets a one-line `ScenarioError`, never a hang or a traceback.

Safe YAML (no tags that build Python objects), built straight from the parser's events so that every
rule is checked while the file is read, with the line it applies to:

- the text is UTF-8 (a byte-order mark is allowed); one document per file;
- a key appears once per mapping (both lines are named: which one wins must not be silent);
- numbers are JSON numbers (yaml_scalars.py): integers of at most 100 digits, floats finite (`.inf`, `.nan`
  and literals that overflow to infinity are refused: JSON has neither, and a bound of NaN never fails);
- nesting is at most MAX_DEPTH deep; aliases (`*name`, and `<<: *name` merges) are not recursive and add
  at most MAX_ALIAS_VALUES values and MAX_ALIAS_CHARS characters to what the file itself holds, so a
  "billion laughs" file is refused after reading it once;
- dates and times stay text: tool results are JSON, which has no dates, and an unquoted
  `date: 2026-12-01` must match the string argument a model sends (and `clock:` is a string);
- tags that build anything but plain data (`!!python/object`...) are refused.

`Lines` remembers where each mapping key and list item was read, to name the line of a later error.
"""
from __future__ import annotations

from typing import Any, Optional

import yaml
from yaml.events import (AliasEvent, MappingEndEvent, MappingStartEvent, ScalarEvent, SequenceEndEvent,
                         SequenceStartEvent, StreamEndEvent)

from . import yaml_scalars as scalars

MAX_DEPTH = 100
MAX_ALIAS_VALUES = 100_000
MAX_ALIAS_CHARS = 1_000_000

_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10x faster; only its parser is used

_SPECIAL_START = scalars.NUMBER_START | {"<"}  # plain scalars that may be numbers or a merge key
_TAG = "tag:yaml.org,2002:"
_MERGE = object()  # the key `<<`


class YamlProblem(ValueError):
    """A refused file: `where` is the field path (or ""), `line` the 1-based line (or None)."""

    def __init__(self, where: str, line: Optional[int], message: str):
        super().__init__(message)
        self.where, self.line, self.message = where, line, message


class Lines:
    """Where each mapping key and list item was read: `line(data, loc)` for an error's location."""

    def __init__(self) -> None:
        self._keys: dict[int, dict[Any, int]] = {}
        self._items: dict[int, list[int]] = {}

    def line(self, data: Any, loc: tuple[Any, ...]) -> Optional[int]:
        found, node = None, data
        for part in loc:
            lines = self._items.get(id(node)) if isinstance(node, list) else self._keys.get(id(node))
            if lines is None or not isinstance(node, (dict, list)):
                return found
            try:
                found, node = lines[part], node[part]
            except (KeyError, IndexError, TypeError):
                return found
        return found


def decode(raw: bytes) -> str:
    """UTF-8 text (a leading byte-order mark dropped), or a YamlProblem naming the first bad byte."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlProblem("", line, f"not UTF-8 text: byte 0x{raw[exc.start]:02X} at line {line}, column {column} "
                                    "is not UTF-8; save the file as UTF-8") from None
    return text.removeprefix("\ufeff")


def read(text: str) -> tuple[Any, Lines]:
    """The one document of `text` as plain Python data, and where its keys were read."""
    return _Builder(text).build()


class _Builder:
    """A stack of open collections, each a list (fast to index):
    [container, key read (awaiting its value), line of that key (0: none), anchor, values inside,
    characters inside, merges (`<<`), line of each key or item (also kept in `Lines`), first line]."""

    def __init__(self, text: str):
        self.parser = _Parser(text)
        self.lines = Lines()
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # name -> (value, values inside, characters)
        self.open_anchors: set[str] = set()
        self.alias_values = self.alias_chars = 0

    def build(self) -> tuple[Any, Lines]:
        try:
            return self._build()
        except yaml.YAMLError as exc:
            raise _syntax(exc) from None

    def _build(self) -> tuple[Any, Lines]:
        parser, stack, root = self.parser, [], []
        parser.get_event()  # StreamStart
        if isinstance(parser.peek_event(), StreamEndEvent):  # no document: an empty file, or only comments
            return None, self.lines
        parser.get_event()  # DocumentStart
        keys, items = self.lines._keys, self.lines._items
        while True:
            event = parser.get_event()
            cls = type(event)
            if cls is ScalarEvent:
                value = event.value
                if event.implicit[0] and value and value[0] not in _SPECIAL_START:
                    value = scalars.WORDS.get(value, value)  # the common case, inline: plain text
                else:
                    value = self._scalar(stack, event)
                if event.anchor is not None:
                    self.anchors[event.anchor] = (value, 1, len(event.value))
                frame = stack[-1] if stack else None
                if frame is None or (frame[1] is not _MERGE and type(frame[0]) is dict and frame[2] != 0
                                     and frame[1] in frame[7]) or self.open_anchors:
                    self._add(stack, root, value, 1, len(event.value), event.start_mark.line + 1)  # rare cases
                elif type(frame[0]) is list:
                    frame[0].append(value)
                    frame[7].append(event.start_mark.line + 1)
                elif frame[2] == 0:
                    frame[1], frame[2] = value, event.start_mark.line + 1
                elif frame[1] is _MERGE:
                    self._add(stack, root, value, 1, len(event.value), event.start_mark.line + 1)
                else:
                    frame[0][frame[1]] = value
                    frame[7][frame[1]] = frame[2]
                    frame[1], frame[2] = None, 0
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if len(stack) >= MAX_DEPTH:
                    self._fail(stack, event, f"nested more than {MAX_DEPTH} levels deep")
                mapping = cls is MappingStartEvent
                if event.tag is not None:
                    self._check_tag(stack, event, "map" if mapping else "seq")
                container: Any = {} if mapping else []
                lines: Any = {} if mapping else []
                (keys if mapping else items)[id(container)] = lines
                if event.anchor is not None:
                    self.open_anchors.add(event.anchor)
                stack.append([container, None, 0, event.anchor, 0, 0, [], lines, event.start_mark.line + 1])
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                frame = stack.pop()
                value = self._merged(stack, frame) if frame[6] else frame[0]
                if frame[3] is not None:
                    self.open_anchors.discard(frame[3])
                    self.anchors[frame[3]] = (value, frame[4] + 1, frame[5])
                self._add(stack, root, value, frame[4] + 1, frame[5], frame[8])
            elif cls is AliasEvent:
                self._alias(stack, root, event)
            else:  # DocumentEnd
                break
        following = parser.peek_event()
        if following is not None and not isinstance(following, StreamEndEvent):
            raise YamlProblem("", following.start_mark.line + 1,
                              "a second YAML document ('---'): a scenario file holds one document")
        return root[0], self.lines

    # -- values ------------------------------------------------------------------------------------
    def _add(self, stack: list, root: list, value: Any, values: int, chars: int, line: int) -> None:
        if not stack:
            root.append(value)
            return
        frame = stack[-1]
        if self.open_anchors:  # only an anchor's size matters (for its aliases)
            frame[4] += values
            frame[5] += chars
        container = frame[0]
        if type(container) is list:
            container.append(value)
            frame[7].append(line)
        elif frame[2] == 0:  # a key
            if isinstance(value, (dict, list)):
                raise YamlProblem(_path(stack), line, "a mapping key must be text or a number, not a mapping or a list")
            frame[1], frame[2] = value, line
        else:
            key, key_line, frame[1], frame[2] = frame[1], frame[2], None, 0
            if key is _MERGE:
                frame[6].append((value, key_line))
                return
            first = frame[7].get(key)
            if first is not None:
                raise YamlProblem(_path(stack[:-1] + [[{}, key]]), key_line,
                                  f"duplicate key {key!r} at lines {first} and {key_line}: give it once")
            frame[7][key] = key_line
            container[key] = value

    def _scalar(self, stack: list, event: ScalarEvent) -> Any:
        value = event.value
        try:
            if event.implicit[0]:  # plain: resolved as YAML 1.1, like PyYAML's SafeLoader
                if value == "<<" and stack and isinstance(stack[-1][0], dict) and stack[-1][2] == 0:
                    return _MERGE
                return scalars.plain(value)
            if event.tag in (None, "!", _TAG + "str"):
                return value
            tag = self._check_tag(stack, event, "int", "float", "bool", "null")
            if tag == "int":
                return scalars.to_int(value)
            if tag == "float":
                return scalars.to_float(value)
            return scalars.WORDS.get(value, value) if tag == "bool" else None
        except ValueError as exc:
            if isinstance(exc, YamlProblem):
                raise
            self._fail(stack, event, str(exc))

    def _alias(self, stack: list, root: list, event: AliasEvent) -> None:
        if event.anchor in self.open_anchors:
            self._fail(stack, event, f"the alias *{event.anchor} is recursive (it is inside its own anchor)")
        if event.anchor not in self.anchors:
            self._fail(stack, event, f"the alias *{event.anchor} names no anchor (&{event.anchor}) defined before it")
        value, values, chars = self.anchors[event.anchor]
        self.alias_values += values
        self.alias_chars += chars
        if self.alias_values > MAX_ALIAS_VALUES or self.alias_chars > MAX_ALIAS_CHARS:
            self._fail(stack, event, f"aliases expand to more than {MAX_ALIAS_VALUES:,} values or "
                                     f"{MAX_ALIAS_CHARS:,} characters; write the data out instead")
        self._add(stack, root, value, values, chars, event.start_mark.line + 1)

    def _merged(self, stack: list, frame: list) -> dict:
        """`<<: *a` or `<<: [*a, *b]`, as PyYAML's SafeLoader merges: the first mapping that has a key gives
        its value, the mapping's own keys win over merged ones."""
        result: dict[Any, Any] = {}
        for value, line in frame[6]:
            maps = value if isinstance(value, list) else [value]
            if not all(isinstance(m, dict) for m in maps):
                raise YamlProblem(_path(stack + [[{}, "<<"]]), line, "a merge key (<<) takes a mapping or a list "
                                                                     "of mappings")
            for merged in maps:
                for key, item in merged.items():
                    result.setdefault(key, item)
        result.update(frame[0])
        self.lines._keys[id(result)] = self.lines._keys.pop(id(frame[0]))
        return result

    # -- problems ----------------------------------------------------------------------------------
    def _check_tag(self, stack: list, event: Any, *allowed: str) -> str:
        tag = event.tag
        if tag is None or tag == "!" or (tag.startswith(_TAG) and tag[len(_TAG):] in allowed):
            return allowed[0] if tag in (None, "!") else tag[len(_TAG):]
        self._fail(stack, event, f"the tag {tag} is not allowed: a scenario holds plain data "
                                 "(text, numbers, true/false, null, lists, mappings)")
        raise AssertionError  # unreachable

    def _fail(self, stack: list, event: Any, message: str) -> None:
        raise YamlProblem(_path(stack), event.start_mark.line + 1, message)


def _path(stack: list) -> str:
    """The field being read, as pydantic's locations are written: model.script[0].call."""
    out = ""
    for frame in stack:
        container = frame[0]
        if isinstance(container, list):
            out += f"[{len(container)}]"
        elif frame[1] is not None and frame[1] is not _MERGE:
            out += ("." if out else "") + str(frame[1])
    return out


def _syntax(exc: yaml.YAMLError) -> YamlProblem:
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        where = f" at line {mark.line + 1}, column {mark.column + 1}"
        return YamlProblem("", None, f"not valid YAML{where}: {getattr(exc, 'problem', exc)}")
    if isinstance(exc, yaml.reader.ReaderError):
        return YamlProblem("", None, f"not valid YAML: {exc.reason} (character #x{exc.character:04X} at position "
                                     f"{exc.position})" if isinstance(exc.character, int) else f"not valid YAML: {exc.reason}")
    return YamlProblem("", None, "not valid YAML: " + " ".join(str(exc).split()))
