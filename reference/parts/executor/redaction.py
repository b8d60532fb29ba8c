"""What may reach the model: text that a tool wrote for its caller (a 400's message, a business
rule's reason) goes through `safe_text`, which fails closed. Anything that looks like a stack trace,
a file path, SQL, a host name or a secret drops the whole text, and the model gets the generic
sentence instead."""
from __future__ import annotations

import re
from typing import Any, Optional

LEAK_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("stack trace", re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+"
                               r"|\bat [\w.$]+\(\w+\.\w+:\d+\)")),  # Python, and Java-style frames
    ("exception class", re.compile(r"\b[A-Za-z_][\w.]*(?:Error|Exception)\b")),
    ("file path", re.compile(r"(?:^|[\s'\"(=:])(?:~|\.{1,2})?/[\w.@-]+/[\w.@/-]+|\b[A-Za-z]:\\[\w\\. -]+")),
    ("SQL", re.compile(r"(?is)\b(?:select\b.+\bfrom|insert\s+into|update\b.+\bset|delete\s+from|drop\s+table|"
                       r"alter\s+table|create\s+table)\b")),
    ("host name", re.compile(r"(?i)\b(?:[a-z0-9-]+\.)+(?:internal|local|lan|corp|intra|intranet|svc|cluster|"
                             r"com|net|org|io|cn|cloud)\b"  # a dotted name in a usual domain
                             r"|\b\d{1,3}(?:\.\d{1,3}){3}\b"  # an IPv4 address
                             r"|\b[a-z][\w-]*(?:\.[\w-]+)+:\d{2,5}\b")),  # host:port
    ("URL", re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://")),
    ("secret", re.compile(r"(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|"
                          r"authorization|credentials?|dsn)\b\s*[:=]|\bbearer\s+[\w.~+/-]{8,}|\bsk-[\w-]{8,}|"
                          r"\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----|\bpassword\b")),
]
MAX_DETAIL_CHARS = 300


def leaks(text: str) -> list[str]:
    """The kinds of internal detail found in `text` (empty when none)."""
    return [name for name, pattern in LEAK_PATTERNS if pattern.search(text)]


def safe_text(text: Any) -> Optional[str]:
    """`text` if it may be shown to the model, else None. Fails closed: a redacted stack trace is
    still noise, so anything suspicious, multi-line or long drops the whole text."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text or "\n" in text or len(text) > MAX_DETAIL_CHARS or leaks(text):
        return None
    return text


_ERROR_CODE = re.compile(r"^[A-Z][A-Z0-9_.-]{0,63}$")


def safe_code(code: Optional[str]) -> Optional[str]:
    return code if code and _ERROR_CODE.match(code) else None
