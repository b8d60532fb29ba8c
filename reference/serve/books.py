"""The server's books: every request, and the retries the SDKs make without telling their caller.

Both official SDKs retry a failed request on their own (by default twice, on 408, 409, 429 and 5xx),
and sleep first: `retry-after-ms`, else `retry-after`, else their backoff of 0.5 s, 1 s, 2 s ... (up to
8 s). A served scenario must not make a test wait for real, so every non-2xx answer goes out with
`retry-after-ms: 1` (both SDKs ignore 0 and fall back to their backoff; 1 ms is the shortest wait they
honour) and the wait the script asked for is charged here, on the simulated clock, instead.

A hidden retry is recognised by the `x-stainless-retry-count` header both SDKs send (0 on the first
attempt, then 1, 2 ...). It is counted as what it is: an extra request, the wait before it (the
scripted Retry-After of the answer it repeats, else the SDK's nominal backoff) and the tokens it sends again.
"""
from __future__ import annotations

import hashlib
import threading
from collections import Counter, OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any

WIRE_WAIT = {"retry-after-ms": "1"}  # what every non-2xx answer says on the wire
INITIAL_BACKOFF, MAX_BACKOFF = 0.5, 8.0  # the SDKs' own (openai/_constants.py, anthropic/_constants.py)
REMEMBERED = 10_000  # failed answers whose retry may still come


def scripted_wait(headers: dict[str, str]) -> float | None:
    """The wait a (scripted) answer asks for, in seconds, as the SDKs read it: retry-after-ms first."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = {k.lower(): v for k, v in headers.items()}.get(name)
        if value is not None:
            try:
                return max(float(value) * scale, 0.0)
            except ValueError:
                continue
    return None


def nominal_backoff(retry: int) -> float:
    """The SDKs' wait before retry number `retry` (1, 2 ...) without a Retry-After, jitter left out (the most)."""
    return min(INITIAL_BACKOFF * 2.0 ** (retry - 1), MAX_BACKOFF)


def retry_number(headers: dict[str, str]) -> int:
    try:
        return max(int(headers.get("x-stainless-retry-count", "0")), 0)
    except ValueError:
        return 0


@dataclass
class Figures:
    requests: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    hidden_retries: int = 0  # requests an SDK sent again on its own
    hidden_retry_input_tokens: int = 0  # what those retries sent again (the kit's estimate)
    backoff_seconds: float = 0.0  # simulated: the waits before those retries
    waits_replaced: int = 0  # non-2xx answers whose wait went out as retry-after-ms: 1
    undeclared_tools: dict[str, int] = field(default_factory=dict)  # scripted tools a client did not declare
    input_tokens: int = 0  # the usage of the answers given (what a provider would bill), streamed or not
    output_tokens: int = 0
    refused_over_cap: int = 0  # requests refused because the server's --max-requests was reached


class Books:
    """Thread-safe: one instance for the whole server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._figures = Figures()
        self._calls = 0  # model requests seen, for the cap
        self._status: Counter[str] = Counter()
        self._undeclared: Counter[str] = Counter()
        self._waits: OrderedDict[str, float] = OrderedDict()  # request digest -> wait its failed answer asked

    def record(self, headers: dict[str, str], content: bytes, status: int, answer_headers: dict[str, str],
               input_tokens: int, undeclared: list[str]) -> float | None:
        """Book one request and its answer; returns the wait charged before it if it was a hidden retry."""
        digest = hashlib.sha256(content).hexdigest()  # an SDK retry sends the same bytes again
        retry = retry_number(headers)
        charged = None
        with self._lock:
            f = self._figures
            f.requests += 1
            self._status[str(status)] += 1
            self._undeclared.update(undeclared)
            if retry:
                remembered = self._waits.pop(digest, None)
                charged = remembered if remembered is not None else nominal_backoff(retry)
                f.hidden_retries += 1
                f.hidden_retry_input_tokens += input_tokens
                f.backoff_seconds += charged
            if not 200 <= status < 300:
                f.waits_replaced += 1
                wait = scripted_wait(answer_headers)
                self._waits[digest] = wait if wait is not None else nominal_backoff(retry + 1)
                while len(self._waits) > REMEMBERED:
                    self._waits.popitem(last=False)
        return charged

    def bill(self, input_tokens: int, output_tokens: int) -> None:
        with self._lock:
            self._figures.input_tokens += input_tokens
            self._figures.output_tokens += output_tokens

    def over_cap(self, cap: int | None) -> bool:
        """Counts this model request against the cap; True when it goes over (and is refused)."""
        with self._lock:
            self._calls += 1
            over = cap is not None and self._calls > cap
            self._figures.refused_over_cap += over
        return over

    def figures(self) -> dict[str, Any]:
        with self._lock:
            out = asdict(self._figures)
            out["by_status"] = dict(sorted(self._status.items()))
            out["undeclared_tools"] = dict(sorted(self._undeclared.items()))
        return out


def on_the_wire(status: int, headers: dict[str, str]) -> dict[str, str]:
    """The answer's headers as sent: a non-2xx answer's wait replaced by the shortest one the SDKs honour."""
    if 200 <= status < 300:
        return headers
    kept = {k: v for k, v in headers.items() if k.lower() not in ("retry-after", "retry-after-ms")}
    wait = scripted_wait(headers)
    if wait is not None:
        kept["x-loopkit-scripted-retry-after"] = f"{wait:g}"  # what the script said, for a reader of the logs
    return {**kept, **WIRE_WAIT}
