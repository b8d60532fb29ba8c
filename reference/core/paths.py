"""A file path in its one spelling: POSIX paths as POSIX reads them, Windows paths as Win32 reads them.

Whether a text is a path, and which kind, is decided by its form alone, never by the tool or the key it came in:

- a Windows path starts with a drive letter (`C:\\`, `C:/`), a UNC prefix (`\\\\server\\share`) or `.\\` / `..\\`,
  or is Win32 file names joined by single backslashes (`src\\components\\App.tsx`); it is written once as
  Win32 reads it (Microsoft's "File path formats on Windows systems"): `\\` and `/` are one separator, a doubled
  separator is one, `.` and `..` are resolved, and once it is absolute (a drive or a share) its case is folded as
  NTFS compares names by default (its $UpCase table: one character for one, so `Straße` is not `Strasse`);
- a POSIX path starts with `/`, `./` or `../` and keeps its case (`/srv/A.txt` and `/srv/a.txt` are two files);
- a relative Windows path (`.\\src\\a.ts`, `src\\a.ts`) is resolved against the workspace the conversation
  states, when it states one Windows directory (`stated_directory`): then `src\\a.ts` and `C:\\w\\src\\a.ts` are
  one file. A relative path of POSIX form (`./src/a.ts`) keeps POSIX's rules, its case too, whatever the workspace.

What it must not read as a path: text with a space (a command line, a sentence: `rg "a\\b" src` keeps its
escapes), a URL, a JSON-escaped text (`"` is no Win32 name character), a regex that starts with an escape
(`\\bword\\b`), an escape inside a text (`a\\b`: a backslash and one character). A relative backslash text is
not case-folded (a regex's `a\\B` is not its `a\\b`) unless the workspace makes it absolute.
"""
from __future__ import annotations

import functools
import ntpath
import posixpath
import re
from typing import Optional

__all__ = ["canonical_path", "stated_directory"]

_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_UNC = re.compile(r"\\\\[^\\/]+[\\/][^\\/]+")
# a Win32 file name: none of the reserved characters < > : " / \ | ? * nor a control character
_NAME = re.compile(r'[^<>:"/\\|?*\x00-\x1f]+')
# an absolute Windows path written in prose: a drive or a share, up to a space or a quote
_WRITTEN = re.compile(r"""(?<![\w\\/])(?:[A-Za-z]:[\\/]|\\\\[^\\/\s"'<>|?*]+\\)[^\s"'<>|?*`]*""")


def _windows_absolute(text: str) -> bool:
    return bool(_DRIVE.match(text) or _UNC.match(text))


def _windows_relative(text: str) -> bool:
    """`.\\a`, `..\\a`, or Win32 names of two characters or more joined by single backslashes: a backslash and
    one character is how a regex, JSON or C writes an escape (`a\\b`, `\\d`), and `a\\\\b` a regex's backslash."""
    if text.startswith((".\\", "..\\")):
        return all(_NAME.fullmatch(p) for p in re.split(r"[\\/]+", text) if p)
    parts = text.split("\\")
    return (len(parts) > 1 and "/" not in text and all(_NAME.fullmatch(p) for p in parts)
            and all(len(p) > 1 for p in parts[1:]))


# NTFS compares names by its $UpCase table, Unicode's simple one-to-one uppercase mapping, not by full case folding:
# `Straße.txt` and `Strasse.txt`, `ﬁle` and `file` are two files there. Each character is upcased where that gives one
# character, then ASCII letters are written small, so a path keeps the spelling readers expect (`c:\w\a.txt`).
_ASCII_SMALL = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _absolute(text: str) -> str:
    return "".join(c.upper() if len(c.upper()) == 1 else c for c in ntpath.normpath(text)).translate(_ASCII_SMALL)


def canonical_path(text: str, base: Optional[str] = None) -> str:
    """The path's one spelling (see the module's docstring); `base`, an absolute Windows directory, resolves a
    relative one. Any text that is not a path is returned as it is."""
    if not text or "://" in text or any(c.isspace() for c in text):
        return text
    if _windows_absolute(text):
        return _absolute(text)
    windows = _windows_relative(text)
    if base and windows:
        return _absolute(ntpath.join(base, text))
    if windows:
        return ntpath.normpath(text)
    if text.startswith(("/", "./", "../")):
        return posixpath.normpath(text)
    return text


@functools.lru_cache(maxsize=16)
def stated_directory(text: str) -> Optional[str]:
    """The workspace a conversation states: the absolute Windows path it writes that every other absolute Windows
    path it writes lies under (a workspace, and files in it); None when it writes none, or two unrelated ones."""
    found = {_absolute(p.rstrip(".,;:)]}'")) for p in _WRITTEN.findall(text or "")}
    if not found:
        return None
    root = min(found, key=len)
    inside = all(p == root or p.startswith(root.rstrip("\\") + "\\") for p in found)
    return root if inside else None
