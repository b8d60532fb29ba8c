"""The bench's results: a text table, the Markdown page (docs/bench.md) and a plot."""
from __future__ import annotations

from typing import Any, Sequence

from .frameworks import FRAMEWORKS
from .run import Outcome

COLUMNS = ["framework", "scenario", "model calls", "stopped", "done", "tokens in/out", "cost $"]
MARKER = "<!-- bench-table -->"  # lesson 7 reads the rows after it


def _done(value: bool | None) -> str:
    return "—" if value is None else ("yes" if value else "no")


def rows(outcomes: Sequence[Outcome]) -> list[list[str]]:
    return [[o.framework, o.scenario, str(o.model_calls), o.stop, _done(o.done),
             f"{o.input_tokens:,}/{o.output_tokens:,}", f"{o.cost:.4f}"] for o in outcomes]


def table(outcomes: Sequence[Outcome]) -> str:
    body = [COLUMNS, *rows(outcomes)]
    widths = [max(len(r[i]) for r in body) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in body)


def markdown(outcomes: Sequence[Outcome], versions: dict[str, str], date: str, args: Any,
             plot_link: str | None = "bench.png") -> str:
    lines = ["# `loopkit bench`: other frameworks' default loops on the kit's scenarios", "",
             "Regenerate with `loopkit bench --write docs/bench.md` (makes each framework's venv on first use; "
             "network once). Each run: the framework's default agent loop, on Chat Completions, against a "
             "loopback `loopkit serve` of the scenario, with the scenario's tools as the framework's own tools "
             "(answered by the kit's fake tools), `max_retries=0`, a dummy key, telemetry off; "
             f"capped at {args.timeout:g} s of wall time and {args.max_requests} model requests (the server "
             "refuses the next ones with 429).", "",
             "*Model calls*, *tokens* and *cost* are the server's books (`GET /loopkit/books`) at the scenario's "
             "pricing. *Done*: the expected facts are in the final answer and every tool the task needs gave a "
             "successful result; — where the scenario cannot be completed (an honest stop is the right end).",
             "", "Tools fail for real: a tool that times out, raises, or gets an HTTP error status from its service "
             "raises TimeoutError, RuntimeError or urllib's HTTPError inside the framework's own tool function, so "
             "the framework's own error path decides what the model sees (an error text, or the run ends with the "
             "exception). The scripted model's cooperative reactions are decided from the server's books, not from "
             "wording: it changes course when what it received for a call is not what the tool returned for it "
             "(the tool was not run, or its output was replaced); any report of a run that raised counts as the "
             "tool's own. smolagents' text-rendered tool steps ('Calling tools:', 'Observation:') are read back "
             "as tool calls and results, so the same reactions hear them. Caveat: the scripted model reacts only "
             "where a scenario scripts a reaction; a real model may behave otherwise. A wall-time stop can be the "
             "machine's load rather than the framework (2 shared cores here): rerun that row alone with a larger "
             "--timeout to tell.",
             "", f"Measured {date}.", "", "| framework | versions | notes |", "| --- | --- | --- |"]
    lines += [f"| {name} | {shown} | {FRAMEWORKS[name].note} |" for name, shown in versions.items()]
    lines += ["", MARKER, "", "| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    lines += ["| " + " | ".join(r) + " |" for r in rows(outcomes)]
    seen: set[tuple[str, str]] = set()
    notes = [f"- {o.framework}, {o.scenario} ({o.stop}): `{o.detail[:160]}`" for o in outcomes
             if o.detail and (o.framework, o.stop) not in seen and not seen.add((o.framework, o.stop))]
    lines += ["", "What the frameworks said when they stopped without an answer (the first run of each kind):", "",
              *notes] if notes else []
    lines += ["", f"![model calls per framework and scenario]({plot_link})", ""] if plot_link else [""]
    return "\n".join(lines)


def read_table(text: str) -> list[dict[str, str]]:
    """The rows of the results table in docs/bench.md, as dicts by column name (for lesson 7)."""
    after = text.split(MARKER, 1)[-1].strip().splitlines()
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in after if line.startswith("|")]
    return [dict(zip(cells[0], row)) for row in cells[2:]] if len(cells) > 2 else []


def plot(outcomes: Sequence[Outcome], path: str) -> None:
    import matplotlib  # lazy: a heavy library, needed only for the picture
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    frameworks = list(dict.fromkeys(o.framework for o in outcomes))
    scenarios = list(dict.fromkeys(o.scenario for o in outcomes))
    calls = {(o.framework, o.scenario): o for o in outcomes}
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / max(len(frameworks), 1)
    for i, name in enumerate(frameworks):
        xs = [j + i * width for j in range(len(scenarios))]
        got = [calls.get((name, s)) for s in scenarios]
        bars = ax.bar(xs, [o.model_calls if o else 0 for o in got], width, label=name)
        for bar, o in zip(bars, got):
            if o is not None and o.done is not None:
                ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), "✓" if o.done else "✗",
                        ha="center", va="bottom", fontsize=8)
    ax.set_xticks([j + width * (len(frameworks) - 1) / 2 for j in range(len(scenarios))], scenarios,
                  rotation=30, ha="right")
    ax.set_ylabel("model calls")
    ax.set_title("model calls per run (✓ task done, ✗ not; none: cannot be completed)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
