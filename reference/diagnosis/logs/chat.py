"""Message lists as the three wire formats log them: OpenAI Chat Completions, Anthropic Messages and
OpenAI Responses items. One list is one conversation; `read_list` tells the format by content.

    chat        {"role": "assistant", "tool_calls": [{"id", "function": {"name", "arguments"}}]},
                {"role": "tool", "tool_call_id", "content"}  (and the older function_call / role "function");
                harnesses also log calls as {"id", "name", "arguments"} and results naming their call by `id`
                with a boolean `error`, and a user entry may carry calls of its own (the user's actions)
    anthropic   {"role": "assistant", "content": [{"type": "tool_use", "id", "name", "input"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id", "content", "is_error"}]}
    responses   {"type": "function_call", "call_id", "name", "arguments"},
                {"type": "function_call_output", "call_id", "output"}, {"type": "message", "role", "content"}

Every entry of the list counts for the message index, system and user entries included. An entry that
cannot be read is one problem line (its index and why) and the rest of the list is still read.
"""
from __future__ import annotations

import errno
import os
import re
from typing import Any, Optional

from ...core.messages import SystemMessage, UserMessage
from ...parts.guards.responses import states_transient
from ...parts.guards.statuses import ERROR_PHRASES
from .conversation import Conversation, Pairing, arguments_text, text_of

# A plain-text result that opens by saying it failed, in the forms the languages and tools print untranslated: an
# exception's class name, then its message (Python's traceback and its last line `KeyError: 'region'`, PEP 8's
# CapWords names ending in Error; Java's `Throwable.toString`, `java.io.IOException: ...`; ECMAScript's
# `Error.prototype.toString`, `Error: ...`, `TypeError: ...`), or a severity name before the message (PostgreSQL's
# ERROR and FATAL, Python logging's `ERROR - ...`, git's `error:` and `fatal:`). "Errors found: 0", "Error rate: 3%"
# or "Error-free run" do not open that way and stay successes. A word in another language ("Fehler: ...") names no
# such form and is not read: where the wire carries a failure flag, the flag decides.
_SAYS_ERROR = re.compile(r"^\s*(?:(?i:error|exception|fatal)(?:\s*[:!]|\s+-\s)"
                         r"|(?:[A-Za-z_$][\w$]*\.)*(?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception)(?::|\s*$)"
                         r"|Traceback \(most recent call last\))")


# A line as C's `perror` prints a failed system call (ISO C 7.21.10.4: the caller's words, a colon and a space, then
# strerror's message) and POSIX utilities print their diagnostics (`sh: ./gradlew: Permission denied`, `cat: a.txt: No
# such file or directory`): the C library's message for an errno ends the line. A line that only holds one of those
# words elsewhere ("Permission denied errors: 0") is not that form.
_PERROR = re.compile(r"^[^\n]*\S: (?:" + "|".join(sorted({re.escape(os.strerror(code)) for code in errno.errorcode},
                                                            key=len, reverse=True)) + r")\s*$")


# An error record as PowerShell prints it (its default NormalView, in every locale): the position, the code line and
# its `~` underline, the message, then the ErrorRecord's own properties `+ CategoryInfo : ...` and, last,
# `+ FullyQualifiedErrorId : ...`, which PowerShell never translates. A result that holds records and nothing else
# is the failure ("In Zeile:1 Zeichen:35 ... + FullyQualifiedErrorId : InvalidEndOfLine", beside only the one-line
# status a harness appends, words and a number: "Status Code: 1"); output beside a record (the listing asked for
# after a non-terminating error on one of its paths, a script that went on, a log read back) is the answer.
_ERROR_RECORD = re.compile(r"^\s*\+ CategoryInfo\s*: \S[^\n]*\n\s*\+ FullyQualifiedErrorId\s*: \S[^\n]*$",
                           re.MULTILINE)
# The same record in PowerShell 7's default ConciseView, when it comes from a script or the parser: the command and
# where, then a `Line |` block, the line's number and text, its `~` underline and the message, each behind a `|`.
_CONCISE_BLOCK = re.compile(r"[^\n]+\n\s*Line \|\s*(?:\n\s*[0-9]*\s*\|[^\n]*)+")
_EXIT_STATUS = re.compile(r"[^\d\n]*[^\W\d_][^\d\n]*?[0-9]+\W*")


_CODE_AND_PHRASE = "|".join(f"{code} {re.escape(phrase)}" for code, phrases in ERROR_PHRASES.items()
                            for phrase in phrases)


# An HTTP error status as RFC 9110 writes it, a 4xx or 5xx code and its reason phrase, ending a clause ("returned 404
# Not Found: {...}"); a title that names one ("Custom 404 Not Found page") goes on and states none.
_HTTP_ERROR = re.compile(r"(?<!\w)(?:" + _CODE_AND_PHRASE + r")\s*(?:[:.,;)]|$)", re.IGNORECASE)


# An HTTP response's status line as the whole of a result's first line: the response opens with it and its body
# follows. RFC 9112 section 4's grammar, `HTTP/d[.d] 4xx|5xx [reason]`, is read whatever its reason phrase says ("a
# client SHOULD ignore the reason-phrase content": nginx's "Service Temporarily Unavailable", a translated one, none),
# and so is the shorter "HTTP 429 Too Many Requests" some clients print, when a registered code and its registry's
# phrase or none follow "HTTP" ("HTTP 500 errors today: 0" goes on in words of its own). A success's status line
# ("HTTP/1.1 200 OK") or a log whose later line quotes one is no failure.
_STATUS_LINE = re.compile(r"\s*HTTP(?:/[0-9](?:\.[0-9])? +[45][0-9]{2}(?: [^\n]*)?"
                          r"| +(?:" + "|".join(f"{code}(?: +(?:{'|'.join(map(re.escape, phrases))}))?"
                                               for code, phrases in ERROR_PHRASES.items()) + r"))\s*", re.IGNORECASE)


def says_error(text: str) -> bool:
    """Is a result on a wire with no failure flag a failure? (Where the wire has one, Anthropic's `is_error`, an
    OpenTelemetry span's status, a harness's `error`, the flag decides and the words do not.) It is when it opens by
    saying so, or when it is one line that states a failure the standards call transient in their own form (a
    refused connection, "timed out", an HTTP 503 status line: `states_transient`), whatever words frame it ("Failed
    to send email: connect ECONNREFUSED ...") or an HTTP error status ending a clause ("Error executing tool t: API
    returned 404 Not Found: {...}"), or when its first line is a failed system call as `perror` and the POSIX
    utilities print it (`bash: ./gradlew: Permission denied`, then the exit code), or when its first line is an HTTP
    error status line with the response's body below it, or when it holds PowerShell error records and nothing else
    (`_ERROR_RECORD`: a parser error in German is one in English). Output of many lines that shows one (a log
    tail, a test run whose check hit a refused port, a record beside a script's output) reports it and stays
    an answer; so does "Set timeout.", which names no failure."""
    lines = text.strip().splitlines()
    return bool(_SAYS_ERROR.match(text[:200])) or bool(lines and _PERROR.match(lines[0][:300])) \
        or bool(lines and _STATUS_LINE.fullmatch(lines[0][:300])) or _only_error_records(lines) \
        or (len(lines) == 1 and (states_transient(lines[0][:300]) or bool(_HTTP_ERROR.search(lines[0]))))


def _only_error_records(lines: list[str]) -> bool:
    """Does every paragraph of the text (lines between blank ones) end with a PowerShell error record, but for one-line
    statuses of words and a number (`_EXIT_STATUS`), with at least one record?"""
    paragraphs, current = [], []
    for line in [*lines, ""]:
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    records = [p for p in paragraphs if len(p) >= 2 and _ERROR_RECORD.search("\n".join(p[-2:]))
               or len(p) >= 3 and _CONCISE_BLOCK.fullmatch("\n".join(p))]
    return bool(records) and all(p in records or (len(p) == 1 and _EXIT_STATUS.fullmatch(p[0].strip()))
                                 for p in paragraphs)


def detect(entries: list[Any]) -> Optional[str]:
    """'chat', 'anthropic' or 'responses' for a list that looks like messages, else None."""
    kinds = set()
    for e in entries[:200]:
        if not isinstance(e, dict):
            continue
        if e.get("type") in ("function_call", "function_call_output", "reasoning", "message"):
            kinds.add("responses")
        elif isinstance(e.get("role"), str):
            blocks = e.get("content")
            if isinstance(blocks, list) and any(isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result")
                                                for b in blocks):
                kinds.add("anthropic")
            else:
                kinds.add("chat")
    for name in ("responses", "anthropic", "chat"):
        if name in kinds:
            return name
    return None


def read_list(c: Conversation, entries: list[Any]) -> Conversation:
    kind = detect(entries) or "chat"
    c.format = kind
    pairing = Pairing(c)
    if c.system:
        pairing.add(SystemMessage(c.system), -1)  # a top-level field, not an entry of the list
    read = {"chat": _chat, "anthropic": _anthropic, "responses": _responses}[kind]
    pending: list[tuple[int, Any]] = []  # responses: consecutive function calls form one turn
    for i, entry in enumerate(entries):
        try:
            if not isinstance(entry, dict):
                raise ValueError(f"an entry must be an object, got {type(entry).__name__}")
            if kind == "responses":
                pending = _responses(pairing, i, entry, pending)
            else:
                read(pairing, i, entry)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            c.problems.append(f"message {i}: {exc} (skipped)")
    if pending:
        _flush(pairing, pending)
    return c


def _usage(c: Conversation, i: int, entry: dict[str, Any]) -> None:
    usage = entry.get("usage")
    if isinstance(usage, dict):
        n = sum(v for k, v in usage.items() if k in ("input_tokens", "output_tokens", "prompt_tokens",
                                                     "completion_tokens") and isinstance(v, int))
        if n:
            c.tokens[i] = n


def _role(entry: dict[str, Any]) -> str:
    role = entry.get("role")
    if not isinstance(role, str):
        raise ValueError(f"'role' must be a string, got {type(role).__name__}")
    return role


def _chat(p: Pairing, i: int, e: dict[str, Any]) -> None:
    role = _role(e)
    if role in ("system", "developer"):
        p.add(SystemMessage(text_of(e.get("content"))), i)
    elif role == "user":
        p.add(UserMessage(text_of(e.get("content"))), i)
        if isinstance(e.get("tool_calls"), list) and e["tool_calls"]:
            p.user_calls(i, [_call(call) for call in e["tool_calls"]])
    elif role == "assistant":
        _usage(p.c, i, e)
        raw = e.get("tool_calls") or []
        if not isinstance(raw, list):
            raise ValueError(f"'tool_calls' must be a list, got {type(raw).__name__}")
        calls = [_call(call) for call in raw]
        legacy = e.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            calls.append((None, legacy["name"], arguments_text(legacy.get("arguments"))))
        p.say(i, text_of(e.get("content")), calls)
    elif role in ("tool", "function"):
        text = text_of(e.get("content"))
        flag = e.get("error", e.get("is_error"))  # a log's own failure flag, where it keeps one
        p.answer(i, e.get("tool_call_id", e.get("id")), text,
                 is_error=flag if isinstance(flag, bool) else says_error(text), named=e.get("name"))
    elif not e.get("tool_calls"):  # a harness's own marker (an `exit` entry): no part of what the model read
        p.c.notes.append(f"message {i}: role {role!r} is none the API defines; counted, not read")
    else:
        raise ValueError(f"unknown role {role!r}")


def _call(call: Any) -> tuple[Any, str, str]:
    """(id, name, argument text) of a call: `{"id", "function": {"name", "arguments"}}` as the API sends it,
    or `{"id", "name", "arguments"}` with name and arguments at the top (how some harnesses log them)."""
    fn = call.get("function") if isinstance(call, dict) else None
    fn = fn if isinstance(fn, dict) else call
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise ValueError("a tool call without a name (function.name, or name)")
    return call.get("id"), fn["name"], arguments_text(fn.get("arguments"))


def _anthropic(p: Pairing, i: int, e: dict[str, Any]) -> None:
    role = _role(e)
    content = e.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]
    if role == "assistant":
        _usage(p.c, i, e)
        calls = [(b.get("id"), b["name"], arguments_text(b.get("input"))) for b in blocks
                 if isinstance(b, dict) and b.get("type") == "tool_use"]
        texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        p.say(i, "\n".join(t for t in texts if isinstance(t, str)), calls)
    elif role in ("user", "system"):
        for b in blocks:  # results first: the API requires them before any text of the turn
            if isinstance(b, dict) and b.get("type") == "tool_result":
                text = text_of(b.get("content"))
                p.answer(i, b.get("tool_use_id"), text, is_error=b.get("is_error") is True)  # the wire's flag decides
        text = "\n".join(str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"
                         and b.get("text"))
        if text:
            p.add((SystemMessage if role == "system" else UserMessage)(text), i)
    else:
        raise ValueError(f"unknown role {role!r}")


def _responses(p: Pairing, i: int, e: dict[str, Any], pending: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    kind = e.get("type", "message")
    if kind == "function_call":
        if not isinstance(e.get("name"), str):
            raise ValueError("a function_call without a name")
        return [*pending, (i, e)]
    if pending:
        _flush(p, pending)
        pending = []
    if kind == "function_call_output":
        text = text_of(e.get("output"))
        p.answer(i, e.get("call_id"), text, is_error=says_error(text))
    elif kind == "message":
        role = _role(e)
        text = text_of(e.get("content"))
        if role == "assistant":
            return [(i, {"text": text})]  # its calls, if any, follow as function_call items
        p.add((UserMessage if role == "user" else SystemMessage)(text), i)
    elif kind not in ("reasoning", "web_search_call", "file_search_call", "item_reference"):
        raise ValueError(f"unknown item type {kind!r}")
    return pending


def _flush(p: Pairing, pending: list[tuple[int, Any]]) -> None:
    """One assistant turn from an assistant message and/or the function calls that follow it."""
    text = " ".join(e["text"] for _, e in pending if "text" in e and e["text"])
    calls = [(e.get("call_id"), e["name"], arguments_text(e.get("arguments")), i) for i, e in pending
             if e.get("type") == "function_call"]
    p.say(pending[0][0], text, calls)
