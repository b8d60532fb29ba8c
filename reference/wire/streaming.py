"""Streamed answers: a finished response body cut into the server-sent events each service sends.

`sse_events(wire, payload, include_usage=...)` takes the body `response_from_turn` built and returns
the events a client with `stream=True` receives, in the services' order; `encode_sse` writes them.
The shapes follow recorded live streams (docs/protocol.md, "Streaming"):

- Chat Completions: `data:` lines only, `chat.completion.chunk` objects; the first chunk carries the
  role, each tool call starts with its id, type and name and then sends `arguments` in pieces; a chunk
  with the finish reason; with `stream_options.include_usage`, every chunk has `"usage": null` and a
  last chunk with `choices: []` carries the usage; then `data: [DONE]`.
- Responses: `event:` + `data:` with a `sequence_number` from 0: response.created, in_progress, for
  each output item output_item.added, its deltas and .done events, output_item.done, and
  response.completed (or response.incomplete) with the whole response. No [DONE].
- Anthropic: message_start, then per block content_block_start, (a ping after the first start),
  text_delta or input_json_delta pieces (the first input_json_delta is empty), content_block_stop;
  message_delta with the stop reason and the output tokens; message_stop. No [DONE].

Text and arguments are cut into pieces of `PIECE` characters: a client must join the pieces itself,
which is where streamed tool calls go wrong (lesson 1's notebook shows how to assemble them).
"""
from __future__ import annotations

import copy
import json
from typing import Any, Iterator

PIECE = 8  # characters per delta: small enough that every argument string arrives in several pieces

Event = tuple[str | None, Any]  # (event name or None, data: a JSON-able object or the literal "[DONE]")


def pieces(text: str, size: int = PIECE) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def encode_sse(events: list[Event]) -> bytes:
    out: list[str] = []
    for name, data in events:
        line = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        out.append((f"event: {name}\n" if name else "") + f"data: {line}\n\n")
    return "".join(out).encode("utf-8")


def sse_events(wire: str, payload: dict[str, Any], *, include_usage: bool = False) -> list[Event]:
    if wire == "openai-chat":
        return list(_chat(payload, include_usage))
    if wire == "openai-responses":
        return list(_responses(payload))
    if wire == "anthropic":
        return list(_anthropic(payload))
    raise ValueError(f"unknown wire format {wire!r}")


# ------------------------------------------------------------------------------ Chat Completions

def _chat(payload: dict[str, Any], include_usage: bool) -> Iterator[Event]:
    choice = payload["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
        body: dict[str, Any] = {"id": payload["id"], "object": "chat.completion.chunk", "created": payload["created"],
                                "model": payload["model"],
                                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if include_usage:
            body["usage"] = None
        return None, body

    text = message.get("content")
    yield chunk({"role": "assistant", "content": "" if text is not None else None, "refusal": None})
    for piece in pieces(text or ""):
        yield chunk({"content": piece})
    for k, call in enumerate(message.get("tool_calls") or []):
        yield chunk({"tool_calls": [{"index": k, "id": call["id"], "type": "function",
                                     "function": {"name": call["function"]["name"], "arguments": ""}}]})
        for piece in pieces(call["function"]["arguments"]):
            yield chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]})
    yield chunk({}, choice["finish_reason"])
    if include_usage:
        yield None, {"id": payload["id"], "object": "chat.completion.chunk", "created": payload["created"],
                     "model": payload["model"], "choices": [], "usage": payload["usage"]}
    yield None, "[DONE]"


# ------------------------------------------------------------------------------ Responses

def _responses(payload: dict[str, Any]) -> Iterator[Event]:
    number = iter(range(1_000_000))

    def event(kind: str, **fields: Any) -> Event:
        return kind, {"type": kind, "sequence_number": next(number), **fields}

    started = copy.deepcopy(payload)
    started.update(status="in_progress", output=[], usage=None, incomplete_details=None)
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    for k, item in enumerate(payload["output"]):
        if item["type"] == "message":
            yield event("response.output_item.added", output_index=k,
                        item={**item, "status": "in_progress", "content": []})
            for c, part in enumerate(item["content"]):
                where = {"item_id": item["id"], "output_index": k, "content_index": c}
                yield event("response.content_part.added", **where, part={**part, "text": ""})
                for piece in pieces(part["text"]):
                    yield event("response.output_text.delta", **where, delta=piece, logprobs=[])
                yield event("response.output_text.done", **where, text=part["text"], logprobs=[])
                yield event("response.content_part.done", **where, part=part)
        elif item["type"] == "function_call":
            yield event("response.output_item.added", output_index=k,
                        item={**item, "status": "in_progress", "arguments": ""})
            where = {"item_id": item["id"], "output_index": k}
            for piece in pieces(item["arguments"]):
                yield event("response.function_call_arguments.delta", **where, delta=piece)
            yield event("response.function_call_arguments.done", **where, name=item["name"],
                        arguments=item["arguments"])
        yield event("response.output_item.done", output_index=k, item=item)
    yield event("response.incomplete" if payload["status"] == "incomplete" else "response.completed",
                response=payload)


# ------------------------------------------------------------------------------ Anthropic Messages

def _anthropic(payload: dict[str, Any]) -> Iterator[Event]:
    def event(kind: str, **fields: Any) -> Event:
        return kind, {"type": kind, **fields}

    usage = payload["usage"]
    start = {**payload, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**usage, "output_tokens": 1}}  # the service reports a token or so at the start
    yield event("message_start", message=start)
    if not payload["content"]:
        yield event("ping")
    for k, block in enumerate(payload["content"]):
        if block["type"] == "text":
            yield event("content_block_start", index=k, content_block={**block, "text": ""})
            deltas = [{"type": "text_delta", "text": piece} for piece in pieces(block["text"])]
        else:  # tool_use: the input arrives as JSON text in pieces, the first one empty
            yield event("content_block_start", index=k, content_block={**block, "input": {}})
            arguments = json.dumps(block["input"], ensure_ascii=False)
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in [""] + pieces(arguments)]
        if k == 0:
            yield event("ping")
        for delta in deltas:
            yield event("content_block_delta", index=k, delta=delta)
        yield event("content_block_stop", index=k)
    yield event("message_delta", delta={"stop_reason": payload["stop_reason"], "stop_sequence": None},
                usage={"output_tokens": usage["output_tokens"]})
    yield event("message_stop")
