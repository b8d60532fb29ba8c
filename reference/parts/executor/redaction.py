"""What may reach the model. Two doors, one set of credential patterns (reference/core/redact.py, which
the traces use too):

- an error's text that a tool wrote for its caller (a 400's message, a business rule's reason) goes
  through `safe_text`, which fails closed: anything that looks like a stack trace, a file path, SQL, a
  host name or a secret drops the whole text, and the model gets the generic sentence instead;
- a *successful* result's data goes through `scrub`, which cannot drop the data (it is the answer):
  credentials are masked in place, stack traces and internal hosts and paths are replaced by a marker,
  and what was hidden is counted (the executor adds it to the ledger).

Why not detect-secrets' plugins (Yelp's maintained set)? Measured with detect-secrets 1.5.0: its
GitHub plugin reports only the prefix ("ghp") as the secret, so masking what it reports leaves the
token readable; its OpenAI plugin misses project keys (sk-proj-...); its keyword plugin needs a file
name and a language to work; and its 27 plugins take about 30 ms over a 40 kB result, where one pass
for clues in C and the patterns below take well under 1 ms. The formats its plugins know are in
`core.redact.SECRET_PATTERNS` instead, one regular expression each.
"""
from __future__ import annotations

import json
import re
from typing import Any, Optional

from ...core.redact import SECRET_PATTERNS, found as credentials_in, redact_text

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
                          r"authorization|credentials?|dsn)\b\s*[:=]|\bpassword\b")),  # a label alone is enough here
    *[("secret", pattern) for _, pattern in SECRET_PATTERNS],  # the credentials themselves: core/redact.py's set
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


# What a successful result may not show the model, besides credentials. Narrower than LEAK_PATTERNS: a
# result's data is kept, so only what is plainly internal is replaced (a public domain name stays).
INTERNAL_PATTERNS: list[tuple[str, re.Pattern[str], str]] = [
    ("stack trace", re.compile(r"Traceback \(most recent call last\)[\s\S]*|(?:\n?\s*at [\w.$<>]+\([\w.]+:\d+\))+"
                               r"|(?:\n?\s*File \"[^\"]+\", line \d+.*)+"), "[stack trace removed]"),
    ("internal host", re.compile(r"(?i)\b(?:[a-z0-9-]+\.)+(?:internal|local|lan|corp|intra|intranet|svc)\b(?::\d{2,5})?"
                                 r"|\b(?:10|127)(?:\.\d{1,3}){3}\b|\b192\.168(?:\.\d{1,3}){2}\b"
                                 r"|\b172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}\b"), "[internal host]"),
    ("internal path", re.compile(r"(?<![\w.:/])/(?:srv|opt|home|var|usr|etc|root|app|tmp)/[\w.@/-]+"
                                 r"|\b[A-Za-z]:\\[\w\\. -]+"), "[internal path]"),
]
_INTERNAL_CLUES = ("traceback", " at ", 'file "', ".internal", ".local", ".lan", ".corp", ".intra", ".svc", "10.",
                   "127.", "192.168.", "172.", "/srv/", "/opt/", "/home/", "/var/", "/usr/", "/etc/", "/root/",
                   "/app/", "/tmp/", ":\\")


_FIELD_CLUES = ("pass", "pwd", "secret", "token", "key", "credential", "authorization")


def scrub(data: Any) -> tuple[Any, dict[str, int]]:
    """A successful result's data as the model may read it, and what was hidden (kind -> count)."""
    text = json.dumps(data, ensure_ascii=False, default=str)
    lower = text.lower()
    if not credentials_in(text) and not any(clue in lower for clue in _INTERNAL_CLUES + _FIELD_CLUES):
        return data, {}  # the common case: one pass, nothing to hide
    counts: dict[str, int] = {}
    return _scrub(data, counts), counts


# A field whose *name* says it holds a credential: its value is masked whole, whatever it looks like
# (`aws_secret_access_key`, `client_secret`, `webhook_secret`, `password`, `api_key`, `auth_token`).
SECRET_FIELD = re.compile(r"(?i)(?:^|[_-])(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|"
                          r"private[_-]?key|credentials?|authorization)(?:$|[_-])")


def _scrub(value: Any, counts: dict[str, int]) -> Any:
    if isinstance(value, str):
        return _scrub_text(value, counts)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(k, str) and isinstance(v, str) and v and SECRET_FIELD.search(k) and not credentials_in(k):
                counts["secret field"] = counts.get("secret field", 0) + 1
                out[k] = "*" * len(v)
            else:
                out[_scrub_text(k, counts) if isinstance(k, str) else k] = _scrub(v, counts)
        return out
    if isinstance(value, (list, tuple)):
        return [_scrub(v, counts) for v in value]
    return value


def _scrub_text(text: str, counts: dict[str, int]) -> str:
    for kind in credentials_in(text):
        counts[kind] = counts.get(kind, 0) + 1
    text = redact_text(text)
    for kind, pattern, marker in INTERNAL_PATTERNS:
        text, n = pattern.subn(marker, text)
        if n:
            counts[kind] = counts.get(kind, 0) + n
    return text
