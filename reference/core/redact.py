"""Redaction for what the kit writes down (traces, spans, replays): secrets are masked, the rest is kept.

Why not lesson 5's `LEAK_PATTERNS` (reference/parts/executor/redaction.py)? Two reasons. They live in `parts`,
above the harness that records traces, and an import may only point down. And they answer another
question: "may the model read this text?", failing closed on anything internal-looking (a domain name,
a file path, an exception's class name), so a tool result that names `example.com` would be dropped
whole. A trace must keep the data to replay the run and to diagnose it; what it must not keep is a
credential. So here only credentials are matched, and each is masked in place, character for
character: the text keeps its length, so a replay from a redacted trace costs the same tokens.

    redact_text("password=hunter22 on db-7")  ->  "password=******** on db-7"
"""
from __future__ import annotations

import json
import re
from typing import Any

MASK = "*"

# Each pattern's group 1 (or the whole match when there is none) is masked.
SECRET_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("key=value secret", re.compile(r"(?i)\b(?:[a-z0-9]+[_-])*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|"
                                    r"private[_-]?key|client[_-]?secret|credentials?)\b[\"']?\s*[:=]\s*[\"']?"
                                    r"([^\s\"',;&]{3,})")),
    ("bearer token", re.compile(r"(?i)\bbearer\s+([\w.~+/=-]{8,})")),
    ("basic auth", re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/=]{12,})")),
    ("DSN password", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@")),
    ("API key", re.compile(r"\b((?:sk|pk|rk)-(?=[\w-]*\d)(?=[\w-]*[A-Za-z][\w-]*[A-Za-z])[\w-]{16,}|xox[abp]-[\w-]{8,})")),
    ("AWS access key", re.compile(r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b")),
    # the token formats detect-secrets' plugins know (GitHub, Slack, Stripe, Google, JWT), one expression each
    ("GitHub token", re.compile(r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_\w{30,})")),
    ("Slack token", re.compile(r"\b(xox[abposr]-[\w-]{10,})")),
    ("Stripe key", re.compile(r"\b((?:sk|rk|pk)_(?:live|test)_[0-9a-zA-Z]{16,})")),
    ("Google API key", re.compile(r"\b(AIza[0-9A-Za-z_-]{35})")),
    ("JWT", re.compile(r"\b(eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,})")),
    ("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)")),
]


# Every pattern needs one of these (lower-cased): one pass in C over a 40 kB tool result instead of
# seven regular expressions, for the common case of nothing to mask.
_CLUES = ("pass", "pwd", "secret", "token", "key", "credential", "bearer", "basic", "://", "sk-", "pk-", "rk-",
          "xox", "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "_live_", "_test_", "aiza", "eyj")


def _may_hold_a_secret(text: str) -> bool:
    return any(map(text.lower().__contains__, _CLUES))  # map over a C method: no Python frame per clue


def redact_text(text: str) -> str:
    """`text` with every credential masked, length kept."""
    if not _may_hold_a_secret(text):
        return text
    for _, pattern in SECRET_PATTERNS:
        text = pattern.sub(_mask, text)
    return text


def _mask(match: re.Match[str]) -> str:
    if match.re.groups == 0:
        return MASK * len(match.group(0))
    start, end = match.span(1)
    whole_start = match.start(0)
    whole = match.group(0)
    return whole[:start - whole_start] + MASK * (end - start) + whole[end - whole_start:]


def redact(value: Any) -> Any:
    """Any JSON-like value with every string in it (keys too) redacted."""
    if not isinstance(value, str) and not _may_hold_a_secret(json.dumps(value, ensure_ascii=False, default=str)):
        return value
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {redact_text(k) if isinstance(k, str) else k: redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    return value


def found(text: str) -> list[str]:
    """The kinds of credential still readable in `text` (a masked one no longer counts)."""
    if not _may_hold_a_secret(text):
        return []
    return [name for name, pattern in SECRET_PATTERNS
            if any((m.group(1) if pattern.groups else m.group(0)).strip(MASK) for m in pattern.finditer(text))]
