"""The Loop Lab's picture: which tool each model request called (step x tool), and the tokens piling up.

matplotlib is imported by the caller's first picture only (a lazy import: `loopkit demo` and the grader
never pay for it); the Agg backend draws without a display.
"""
from __future__ import annotations

from typing import Any

from .engine import LabRun

SIZE = (6.4, 3.2)  # inches, at DPI: fixed, so that a stored picture does not change between machines
DPI = 72


def figure(run: LabRun, title: str | None = None) -> Any:
    import matplotlib  # lazy: heavy, and only the lab draws

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=SIZE, dpi=DPI)
    calls, tokens = fig.subplots(1, 2)
    tools = sorted({name for s in run.steps for name in s["tools"]}) or ["(none)"]
    for s in run.steps:
        for name in s["tools"] or []:
            calls.scatter(s["step"], tools.index(name), color="tab:blue")
        if not s["tools"]:
            calls.scatter(s["step"], -0.6, marker="*", color="tab:green")
    calls.set_yticks(range(len(tools)), tools, fontsize=7)
    calls.set_ylim(-1, len(tools))
    calls.set_xlabel("model request")
    calls.set_title("tool per step (* answer)", fontsize=9)
    tokens.plot([s["step"] for s in run.steps], run.cumulative_tokens, marker="o")
    budget = run.config.token_budget
    if budget:
        tokens.axhline(budget, color="tab:red", linestyle="--", linewidth=1)
    tokens.set_xlabel("model request")
    tokens.set_title("tokens so far", fontsize=9)
    fig.suptitle(title or f"{run.config.scenario}: {run.stop_reason}", fontsize=10)
    fig.tight_layout()
    return fig


def png(run: LabRun, title: str | None = None) -> bytes:
    import io

    buffer = io.BytesIO()
    figure(run, title).savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()
