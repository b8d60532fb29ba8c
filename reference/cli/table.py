"""Plain-text tables for the terminal and the notebooks (no pandas needed)."""
from __future__ import annotations

from typing import Any, Sequence, Union

Column = Union[str, tuple[str, str]]  # a key, or (key, title)


def cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4f}" if abs(value) < 1 else f"{value:,.2f}"
    return "" if value is None else str(value)


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[Column] | None = None, left: int = 1) -> str:
    """One line per row; the first `left` columns left-aligned (text), the others right-aligned (figures)."""
    columns = list(columns) if columns is not None else list(rows[0]) if rows else []
    keys = [c if isinstance(c, str) else c[0] for c in columns]
    titles = [c if isinstance(c, str) else c[1] for c in columns]
    cells = [titles] + [[cell(r.get(k)) for k in keys] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(keys))]
    lines = ["  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))).rstrip()
             for line in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def print_table(rows: Sequence[dict[str, Any]], columns: Sequence[Column] | None = None) -> None:
    print(format_table(rows, columns))
