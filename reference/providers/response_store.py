"""The Responses API's memory: what `previous_response_id` points to, kept by the server, not per client.

A stored response is its whole input (the chain behind it already expanded) and its output turned into
input items, so a request that names it continues exactly that conversation. The store is bounded:
the oldest responses are forgotten first, and a request naming one gets the service's "not found" answer.
"""
from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

KEEP = 10_000  # responses remembered; a scenario run needs a few dozen


class ResponseStore:
    def __init__(self, keep: int = KEEP):
        self.keep = keep
        self._items: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, response_id: str, input_items: list[dict[str, Any]], output: list[dict[str, Any]]) -> None:
        conversation = copy.deepcopy(list(input_items)) + [as_input(item) for item in output]
        with self._lock:
            self._items[response_id] = conversation
            while len(self._items) > self.keep:
                self._items.popitem(last=False)

    def get(self, response_id: str) -> list[dict[str, Any]] | None:
        with self._lock:
            items = self._items.get(response_id)
        return copy.deepcopy(items) if items is not None else None


def as_input(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as the input item that repeats it (the shape a client would send back)."""
    if item["type"] == "function_call":
        return {"type": "function_call", "id": item["id"], "call_id": item["call_id"], "name": item["name"],
                "arguments": item["arguments"]}
    return {"type": "message", "role": "assistant", "content": copy.deepcopy(item["content"])}
