"""Typed runtime state: what the run has done, kept by code. The model proposes, code decides,
the runtime keeps the record.

Pydantic with `extra="forbid"` and strict types: a misspelt field, a string where a number belongs or
a JSON text where an object belongs is refused when it enters the state, not discovered three steps
later. The state carries its schema version; `load_state` upgrades an older record or refuses one it
does not know.
"""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from ..sim.scenario.schema import ChecklistItem

SCHEMA_VERSION = 2  # 1 kept a flat list of done item names; 2 keeps each item with its evidence


class Typed(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)


class Item(Typed):
    """One checklist item. Only `RunState.record` marks it done, with the call that did it."""

    name: str
    tool: Optional[str] = None  # None: only the final answer does it
    when: dict[str, Any] = Field(default_factory=dict)  # the arguments the call must have
    done_by: Optional[str] = None  # the call id, set by the runtime from a validated result
    result: Optional[dict[str, Any]] = None  # the validated data, kept for later steps and the card

    @property
    def done(self) -> bool:
        return self.done_by is not None

    def matches(self, tool: str, arguments: dict[str, Any]) -> bool:
        return tool == self.tool and all(arguments.get(k) == v for k, v in self.when.items())


class RunState(Typed):
    schema_version: Literal[2] = SCHEMA_VERSION
    intent: str
    slots: dict[str, str] = Field(default_factory=dict)
    checklist: list[Item] = Field(default_factory=list)
    card: Optional[dict[str, Any]] = None  # what code rendered once the checklist was complete

    @classmethod
    def for_checklist(cls, intent: str, items: list[ChecklistItem], slots: dict[str, str]) -> "RunState":
        return cls(intent=intent, slots=dict(slots),
                   checklist=[Item(name=i.item, tool=i.tool, when=dict(i.when or {})) for i in items])

    def item_for(self, tool: str, arguments: dict[str, Any]) -> Optional[Item]:
        return next((i for i in self.checklist if i.matches(tool, arguments)), None)

    def record(self, tool: str, arguments: dict[str, Any], call_id: str, data: dict[str, Any]) -> Optional[Item]:
        """The runtime's one way to tick an item: after a call succeeded and its result was validated."""
        item = next((i for i in self.item_for_open(tool, arguments)), None)
        if item is not None:
            item.done_by, item.result = call_id, data
        return item

    def item_for_open(self, tool: str, arguments: dict[str, Any]):
        return (i for i in self.checklist if not i.done and i.matches(tool, arguments))

    @property
    def tools_done(self) -> bool:
        """Every item that needs a tool is done: the next request is for the answer, with no tool."""
        return all(i.done for i in self.checklist if i.tool)

    @property
    def open_tools(self) -> set[str]:
        return {i.tool for i in self.checklist if i.tool and not i.done}


def load_state(raw: Any) -> RunState:
    """A stored state, upgraded to the current schema: a JSON text or a mapping. Anything else is refused.

    Version 1 kept `done: [item names]` and no evidence; its items come back done by `migrated`."""
    if isinstance(raw, (str, bytes)):
        return RunState.model_validate_json(raw)  # a JSON text is parsed and validated, never stored as is
    if not isinstance(raw, dict):
        raise TypeError(f"a stored state is a JSON object, got {type(raw).__name__}")
    version = raw.get("schema_version")
    if version == 1:
        done = set(raw.get("done", []))
        items = [{**i, "done_by": "migrated" if i["name"] in done else None} for i in raw.get("checklist", [])]
        raw = {k: v for k, v in raw.items() if k != "done"} | {"schema_version": 2, "checklist": items}
    elif version != SCHEMA_VERSION:
        raise ValueError(f"state schema version {version!r} is not known (this runtime reads 1 and {SCHEMA_VERSION})")
    return RunState.model_validate(raw)
