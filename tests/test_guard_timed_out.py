"""A write that timed out may have acted (reference/parts/guards/responses.py `timed_out`, state.py
`still_stands`): the read after it checks whether it did and is no repeat; reads asked again and again after that
check, nothing sent in between, still are. Judged in shadow mode on conversations in the chat-log format."""
from __future__ import annotations

import json

import pytest

from reference.diagnosis.logs import read_log
from reference.diagnosis.shadow import judge
from reference.parts.guards.responses import timed_out

TOOLS = [{"type": "function", "function": {"name": "pool_status", "description": "Show a database pool and its replicas.",
                                           "parameters": {"type": "object", "properties": {"pool": {"type": "string"}}}}},
         {"type": "function", "function": {"name": "pool_resize", "description": "Set the replicas of a database pool.",
                                           "parameters": {"type": "object", "properties": {"pool": {"type": "string"},
                                                                                          "replicas": {"type": "integer"}}}}}]
STATUS = ("pool_status", {"pool": "orders-db"})
RESIZE = ("pool_resize", {"pool": "orders-db", "replicas": 3})
ONE = "pool orders-db: 1 replica (replica-1 ready)"
THREE = "pool orders-db: 3 replicas (replica-1 ready, replica-2 starting, replica-3 starting)"
TIMED_OUT = "Error: request timed out after 15000ms"


def _flags(tmp_path, steps: list[tuple[tuple[str, dict], str]]) -> list[str]:
    messages = [{"role": "user", "content": "Resize the orders-db read pool to 3 replicas."}]
    for i, ((name, args), answer) in enumerate(steps):
        messages += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                      "function": {"name": name, "arguments": json.dumps(args)}}]},
                     {"role": "tool", "tool_call_id": f"c{i}", "content": answer}]
    messages.append({"role": "assistant", "content": "Done."})
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"id": "x", "tools": TOOLS, "messages": messages}), encoding="utf-8")
    (conversation,) = list(read_log(path))
    return [c["rule"] for c in judge(conversation).calls if c["verdict"] != "run"]


def test_a_read_after_a_write_that_timed_out_checks_whether_it_acted(tmp_path):
    steps = [(STATUS, ONE), (RESIZE, TIMED_OUT), (RESIZE, TIMED_OUT), (STATUS, ONE), (RESIZE, "resized to 3"),
             (STATUS, THREE)]
    assert _flags(tmp_path, steps) == []


def test_reads_asked_again_and_again_after_that_check_are_still_a_repeat(tmp_path):
    steps = [(STATUS, ONE), (RESIZE, TIMED_OUT), (STATUS, ONE), (STATUS, ONE), (STATUS, ONE), (STATUS, ONE)]
    assert _flags(tmp_path, steps)


@pytest.mark.parametrize("text, said", [(TIMED_OUT, True), ("HTTP 504", True), ({"status": 504}, True),
                                        ("code = DeadlineExceeded desc = deadline", True), ("HTTP 503", False),
                                        ("connect ECONNREFUSED 10.0.4.12:587", False),
                                        ("the timeout argument must be positive", False)])
def test_a_timeout_leaves_what_the_request_did_unknown_a_refusal_does_not(text, said):
    assert timed_out(text) is said
