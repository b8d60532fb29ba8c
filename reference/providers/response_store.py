"""The Responses API's memory: what `previous_response_id` points to, kept by the server, not per client.

A stored response is its whole input (the chain behind it already expanded) and its output turned into
input items, so a request that names it continues exactly that conversation. The store is bounded:
the oldest responses are forgotten first, and a request naming one gets the service's "not found" answer.
"""
from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict
from typing import Any

KEEP = 10_000  # responses remembered; a scenario run needs a few dozen
KEEP_CHARS = 64_000_000  # and at most this much JSON text in all: a few huge conversations cannot fill memory
KEEP_ITEMS = 100_000  # output items an `item_reference` may name


class ResponseStore:
    def __init__(self, keep: int = KEEP, keep_chars: int = KEEP_CHARS):
        self.keep, self.keep_chars = keep, keep_chars
        self._items: OrderedDict[str, tuple[list[dict[str, Any]], int]] = OrderedDict()  # id -> (items, chars)
        self._chars = 0
        self._by_id: OrderedDict[str, dict[str, Any]] = OrderedDict()  # output item id -> the item as input
        self._lock = threading.Lock()

    def put(self, response_id: str, input_items: list[dict[str, Any]], output: list[dict[str, Any]]) -> None:
        repeated = [as_input(item) for item in output]
        conversation = copy.deepcopy(list(input_items)) + repeated
        chars = len(json.dumps(conversation, ensure_ascii=False))
        with self._lock:
            self._items[response_id] = (conversation, chars)
            self._chars += chars
            while len(self._items) > self.keep or (self._chars > self.keep_chars and len(self._items) > 1):
                self._chars -= self._items.popitem(last=False)[1][1]
            self._by_id.update((item["id"], item) for item in repeated if item.get("id"))
            while len(self._by_id) > KEEP_ITEMS:
                self._by_id.popitem(last=False)

    def get(self, response_id: str) -> list[dict[str, Any]] | None:
        with self._lock:
            kept = self._items.get(response_id)
        return copy.deepcopy(kept[0]) if kept is not None else None

    def item(self, item_id: Any) -> dict[str, Any] | None:
        """An output item by its id, as the input item that repeats it (what an `item_reference` names)."""
        with self._lock:
            found = self._by_id.get(item_id) if isinstance(item_id, str) else None
        return copy.deepcopy(found) if found is not None else None


def as_input(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as the input item that repeats it (the shape a client would send back)."""
    if item["type"] == "function_call":
        return {"type": "function_call", "id": item["id"], "call_id": item["call_id"], "name": item["name"],
                "arguments": item["arguments"]}
    return {"type": "message", "id": item["id"], "role": "assistant", "content": copy.deepcopy(item["content"])}
