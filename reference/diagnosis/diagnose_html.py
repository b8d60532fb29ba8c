"""`loopkit diagnose --html FILE`: one self-contained page, the fleet summary and, per flagged conversation,
its timeline: one mark per call in message order, coloured by verdict (run, intervene, stop), the tool's
name under it, the rule and the evidence on hover; a blue bar where the user spoke between two calls. No script, no network: it opens from a mail attachment.
"""
from __future__ import annotations

from html import escape
from typing import Any, Iterable

COLOURS = {"run": "#4c9a5f", "intervene": "#e0a030", "stop": "#c8423b"}
USER = "#3b6fc8"  # a user turn between two calls: a bar between their marks
MAX_PICTURES = 200  # a page a person reads; the JSON Lines hold the rest
STYLE = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}"
         "td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #ddd}h2{margin-top:2em}"
         ".why{color:#555;font-size:.9em}")


def timeline(row: dict[str, Any]) -> str:
    calls = row.get("calls") or []
    step, height = 64, 70
    width = max(step * len(calls) + 20, 200)
    marks = []
    for k, c in enumerate(calls):
        x = 20 + k * step
        tip = f"message {c['message']}: {c['tool']} - {c['verdict']}"
        if c.get("rule"):
            tip += f" ({c['rule']}): {c.get('why', '')}"
        if c.get("evidence"):
            tip += f" - same call at message(s) {', '.join(map(str, c['evidence']))}"
        marks.append(f'<g><title>{escape(tip)}</title><circle cx="{x}" cy="20" r="9" '
                     f'fill="{COLOURS.get(c["verdict"], "#888")}"/>'
                     f'<text x="{x}" y="45" font-size="10" text-anchor="middle">{escape(c["tool"][:10])}</text>'
                     f'<text x="{x}" y="58" font-size="9" text-anchor="middle" fill="#777">#{c["message"]}</text></g>')
        if k:
            marks.insert(0, f'<line x1="{x - step}" y1="20" x2="{x}" y2="20" stroke="#bbb"/>')
        before = calls[k - 1]["message"] if k else -1
        for u in [u for u in row.get("user_turns") or [] if before < u < c["message"]]:
            marks.append(f'<g><title>the user, message {u}</title><line x1="{x - step // 2}" y1="6" '
                         f'x2="{x - step // 2}" y2="34" stroke="{USER}" stroke-width="3"/></g>')
    return f'<svg width="{width}" height="{height}" role="img">{"".join(marks)}</svg>'


def page(summary: dict[str, Any], rows: Iterable[dict[str, Any]], title: str = "loopkit diagnose") -> str:
    out = [f"<!doctype html><meta charset='utf-8'><title>{escape(title)}</title><style>{STYLE}</style>",
           f"<h1>{escape(title)}</h1><table>"]
    facts = [("conversations", f"{summary['conversations']:,}"), ("calls", f"{summary['calls']:,}"),
             ("loop rate", f"{summary['loop_rate']:.1%}"), ("repeated calls", f"{summary['repeated_call_rate']:.1%}"),
             ("calls after a flag", f"{summary['after_flag_share']:.1%}"),
             ("tokens after a flag", f"{summary['tokens_after_flag']:,} of {summary['tokens']:,}"),
             ("shapes", ", ".join(f"{k} {v:,}" for k, v in summary["shapes"].items())),
             ("unreadable entries", f"{summary['problems']:,}")]
    out += [f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts]
    out.append("</table><p>" + " ".join(f'<svg width="12" height="12"><circle cx="6" cy="6" r="5" fill="{c}"/></svg> '
                                        f"{v}" for v, c in COLOURS.items())
               + f' <svg width="6" height="12"><line x1="3" y1="0" x2="3" y2="12" stroke="{USER}" stroke-width="3"/></svg>'
               " the user spoke</p>")
    shown = 0
    for row in rows:
        if row.get("first_flag") is None:
            continue
        if shown == MAX_PICTURES:
            out.append(f"<p>Only the first {MAX_PICTURES} flagged conversations are drawn; --json has them all.</p>")
            break
        shown += 1
        name = f"{row['source']} #{row['conversation']}" + (f" ({row['id']})" if row.get("id") is not None else "")
        out.append(f"<h2>{escape(name)}</h2><p>{escape(row['format'])}, shape <b>{escape(row['shape'])}</b>, first flag "
                   f"at message {row['first_flag']}, {row['calls_after_flag']} calls and {row['tokens_after_flag']:,} "
                   f"tokens from there on</p>{timeline(row)}")
        out += [f"<p class='why'>{escape(n)}</p>" for n in row.get("notes") or []]
    if not shown:
        out.append("<p>No conversation was flagged.</p>")
    return "\n".join(out) + "\n"
