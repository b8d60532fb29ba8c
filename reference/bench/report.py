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


INTRO = """Regenerate with `loopkit bench --results benchmarks/results/bench-DATE.jsonl --write docs/bench.md --plot
docs/bench.png --timeout 300` (makes each framework's venv on first use, network once; `--results` keeps
each run as it ends, so a bench cut short resumes where it stopped, and a page can be rewritten from the
file without running anything). After a change to the kit's guard only the rows it decides are stale
(kit-guarded and every `+kit-guard`): add `--rerun guard` to drop just those runs from the results file and
run them again. Each run: an agent loop on Chat Completions against its own fresh loopback `loopkit serve`
of the scenario, with the scenario's tools as the loop's own tools (answered by the kit's fake tools over
HTTP), `max_retries=0`, a dummy key, telemetry off; capped at {timeout:g} s of wall time and {cap} model
requests (the server refuses the next ones with 429, and the row says *cap*). Each run is a process of its
own, forked from a worker that imported its framework once (`--fresh`: a new process per run, imports
and all): nothing one run does reaches another, a run that hangs is killed at the wall-time cap, and a
worker that dies is replaced, its run recorded with what happened.

Three kinds of rows, all on that same HTTP path:

- **framework alone**: the framework's default agent loop, as its documentation builds it, with its own
  default limits (in the table below, each read from its source).
- **framework `+kit-guard`**: the same loop with the kit's loop guard (lesson 3) inside it, through the
  framework's own extension point: one small module each in `reference/bench/inside/`, all calling one
  entry point, `reference/bench/kitguard.py`, which imports no SDK and no pydantic (the kit is installed
  in the framework's venv with `pip install --no-deps`, plus the guard's own needs (`GUARD_NEEDS`), so CrewAI
  keeps its own `openai` 2.x). Where the framework has a hook before a tool runs the guard answers a
  repeated call there, and the tool never runs; the table says where each one goes in. When the guard
  stops a run the row says *kit guard: PATTERN*.
- **kit-react** and **kit-guarded**: the kit's own loops (lesson 1's ReAct loop; the guarded loop of
  lessons 2-5 with every part), through the official `openai` SDK, with the scenario's step limit.

*Model calls*, *tokens* and *cost* are the server's books (`GET /loopkit/books`) at the scenario's pricing,
not the frameworks' own accounting. *Done*: the expected facts are in the final answer and every tool the
task needs gave a successful result; — where the scenario cannot be completed (an honest stop is the
right end, and a run that ends at a cap or limit is no worse than one that stops early, only dearer).

How tools fail: a tool that times out, raises, or gets an HTTP error status from its service raises
TimeoutError, RuntimeError or urllib's HTTPError inside the framework's own tool function, so the
framework's own error path decides what the model sees (an error text, or the run ends with the
exception). How the scripted model reacts: from the server's books, never from wording. In the
cooperative scenarios it changes course when what it received for a call is not what the tool returned
(the tool was not run, or its output was replaced, whoever did it: a framework's own repeat guard, the
kit's guard, an error handler); the stubborn ones never change course. smolagents' text-rendered tool
steps ('Calling tools:', 'Observation:') are read back as tool calls and results, so the same reactions
hear them.

Caveats. The scripted model reacts only where a scenario scripts a reaction; a real model may behave
otherwise, so read a row as what the loop does with that behaviour, not as a forecast. A wall-time stop can
be the machine's load rather than the framework (2 shared cores here, several runs at once): rerun that row
alone with a larger `--timeout` to tell. The kit's own loops stop at each scenario's step limit (often 8),
which the frameworks do not know about; compare their *done* and *cost*, not their step counts. Inside
smolagents and CrewAI the hooks get no call id; the guard takes each call's id from the model message the
framework holds before running its calls (matching name and arguments), so there too the calls of one
message are one turn.

What a run costs, in CPU seconds so that the machine's load does not count (`python
benchmarks/bench_run_cost.py ROW SCENARIO ...` runs each pair both ways; 2026-12-02): when each run was a
fresh process, importing the framework was most of it. A run's driver CPU, fresh then forked (the fork's
own CPU, the imports already done): CrewAI on happy-path 10.0 then 1.3 s, OpenAI Agents SDK on happy-path
4.8 then 0.6 s, LangGraph on repeat-exact with 60 model calls 7.4 then 3.0 s, pydantic-ai on repeat-exact
with 50 calls 5.5 then 2.4 s, smolagents on repeat-exact with 21 calls 3.1 then 1.4 s, the kit's guarded
loop 1.9 then 0.5 s, crewai+kit-guard on repeat-exact 9.3 then 1.5 s, langgraph+kit-guard on airport-drift
4.3 then 0.8 s; a worker's imports, paid once per venv, 1.0 s (smolagents) to 7.3 s (CrewAI). Those eight
runs: 46.2 CPU seconds fresh, 11.5 forked plus 19.3 for six workers' imports. The server's side (scripted
model, fake tools, HTTP) is the same either way, under 1 s a run. The whole catalogue (61 scenarios x 12 rows, 732 runs, 2026-12-02)
took 26 min 25 s of wall time and 14.0 CPU-minutes (744.5 s user, 98.5 s system, as `/usr/bin/time -v`
counts `loopkit bench` with its servers, workers and runs; the runs' own CPU, 726.6 s of it) at `nice -n
10`, two runs at once, on this 2-core machine while other sessions kept its load average at 4 to 6; the
fresh-process bench was estimated at 66 CPU-minutes and about two hours the day before. After a guard
change landed, `--rerun guard` ran the 366 runs of the guard's six rows again in 9 min 52 s and 5.8
CPU-minutes (none changed its end, model calls or *done*). After the next ones (a repeated read runs once and
its same answer is replaced; duplicate writes; waits, moving polls and Retry-After) it ran them again at
888380b in 8 min 0 s and 6.0 CPU-minutes (`/usr/bin/time -v`, load average 1-2): the alternation scenario now
ends on its own pattern, alternation, where it said repeated_call, in all six guard rows; crewai+kit-guard took
24 model calls on cost-blowup, not 23; 81 runs made one tool call more (the repeated read that now runs); no
*done* and no intervention count changed. After the day's later guard changes (a failure that passes by itself
retried; a failed call and a read asked again both run once and are judged by their answers; duplicate writes
by what a call created; given values telling questions apart) it ran them again at 9eed74f in 8 min 51 s and 6.8
CPU-minutes (351.6 s user, 55.5 s system, load average 2-3): the five framework rows with the kit's guard no
longer intervene on cancel-after-step, a healthy investigation of three different logs (1 intervention each
before, 0 now); no end, model call, tool call or *done* changed. Again at 950c36d, after a write resent in
other words and the reviewer's fixes, in 8 min 11 s and 6.9 CPU-minutes (357.8 s user, 56.1 s system): no run
changed its end, model calls, tool calls, interventions or *done*. A run that ends
at the wall-time cap with little CPU was waiting, not starved: smolagents sleeps through a provider's long
rate limit itself (rerun it alone with a larger `--timeout` to see where it ends). The table's *median run*
is each run's wall time in its fork (imports excluded), as the runs went, two at once on a loaded
machine: an upper bound, not a speed."""


HOWTO = """## Putting the kit's guard into your framework

One guard, `KitGuard` (reference/bench/kitguard.py), built from the tools' definitions and the user's
request; each framework's module (reference/bench/inside/) calls its `before` (before a tool runs) and
`after` (after it ran), and `model_turn` where the framework shows the whole model message:

```python
from reference.bench.kitguard import KitGuard
guard = KitGuard(tools, system=system_prompt, user=user_message)   # tools: name, description, parameters

# LangChain / LangGraph create_agent: agent middleware
from reference.bench.inside.langchain import KitGuardMiddleware
agent = create_agent(model, tools, middleware=[KitGuardMiddleware(guard)])

# OpenAI Agents SDK: tool guardrails (and the tool's exceptions kept) on each function tool, run hooks
from reference.bench.inside.openai_agents import KitGuardHooks, kit_tool_options
tool = function_tool(fn, **kit_tool_options(guard))
Runner.run_sync(agent, task, hooks=KitGuardHooks(guard))

# Pydantic AI: a capability that wraps each tool execution
from reference.bench.inside.pydantic_ai import KitGuardCapability
agent = Agent(model, tools=tools, capabilities=[KitGuardCapability(guard)])

# smolagents: each tool wrapped, the model message heard, a step callback for the stop
from reference.bench.inside.smolagents import guarded_tool, hear_model_turns, kit_step_callback
agent = ToolCallingAgent(tools=[guarded_tool(t, guard) for t in tools], model=model,
                         step_callbacks=[kit_step_callback(guard)])
hear_model_turns(agent, guard)

# CrewAI: its global tool-call and LLM-call hooks (and BaseTool.run wrapped to keep a tool's exception)
from reference.bench.inside.crewai import install
install(guard)
```

Install the kit beside the framework without its pins: `pip install --no-deps agent-loop-interview-kit`, then
the guard's own needs, `pip install python-dateutil airportsdata sqlparse` (from a checkout: `pip
install --no-deps .`). After a run, `guard.events` says what the guard did, step by step, and `guard.stopping`
why it ended the run, if it did (LangChain's state also ends on an AIMessage that says so)."""


def markdown(outcomes: Sequence[Outcome], versions: dict[str, str], date: str, args: Any,
             plot_link: str | None = "bench.png") -> str:
    lines = ["# `loopkit bench`: agent frameworks' loops, alone and with the kit's guard, on the kit's scenarios",
             "", INTRO.format(timeout=args.timeout, cap=args.max_requests), "",
             f"Measured {date}, {measured_at(outcomes)} {coverage(outcomes)}", "",
             "| row | versions | default limits and notes (from the framework's source) | the kit's guard goes in |",
             "| --- | --- | --- | --- |"]
    for name, shown in versions.items():
        f = FRAMEWORKS[name]
        lines.append(f"| {name} | {shown} | {f.note} | {f.hook if not f.guard else '(see the row alone)'} |")
    lines += ["", *summary(outcomes), "", *by_scenario(outcomes), "", HOWTO]
    lines += ["", "## Every run", "", MARKER, "", "| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    lines += ["| " + " | ".join(r) + " |" for r in rows(outcomes)]
    seen: set[tuple[str, str]] = set()
    notes = [f"- {o.framework}, {o.scenario} ({o.stop}): `{o.detail[:160]}`" for o in outcomes
             if o.detail and (o.framework, o.stop) not in seen and not seen.add((o.framework, o.stop))]
    lines += ["", "What the loops said when they stopped without an answer (the first run of each kind):", "",
              *notes] if notes else []
    lines += ["", f"![model calls per framework and scenario]({plot_link})", ""] if plot_link else [""]
    return "\n".join(lines)


def measured_at(outcomes: Sequence[Outcome]) -> str:
    """Which commit of the kit each row ran ("+": with uncommitted changes to its code), so a page whose guard
    rows were rerun after a guard change says so."""
    commits: dict[str, list[str]] = {}
    for o in outcomes:
        commits.setdefault(o.commit or "an unrecorded commit", [])
        if o.framework not in commits[o.commit or "an unrecorded commit"]:
            commits[o.commit or "an unrecorded commit"].append(o.framework)
    if len(commits) == 1:
        return f"every run at the kit's commit {next(iter(commits))}."
    return "the kit's commit by row: " + "; ".join(f"{c}: {', '.join(rows)}" for c, rows in commits.items()) + "."


def coverage(outcomes: Sequence[Outcome]) -> str:
    """Which scenarios the page covers: the whole catalogue is the default, and a page that covers less says so."""
    from ..sim.scenario.loading import catalogue  # here: only a page being written needs the catalogue
    ran, everything = list(dict.fromkeys(o.scenario for o in outcomes)), [s.name for s in catalogue()]
    if set(everything) <= set(ran):
        return f"All {len(everything)} scenarios of the catalogue."
    left = [name for name in everything if name not in ran]
    return (f"{len(ran)} of the catalogue's {len(everything)} scenarios (`--scenarios`): the whole catalogue is "
            f"{len(everything)} x {len(dict.fromkeys(o.framework for o in outcomes))} runs, hours on a small shared "
            "machine; `--results FILE` lets a longer bench resume where it stopped. Not run here: "
            + ", ".join(left) + ".")


def summary(outcomes: Sequence[Outcome]) -> list[str]:
    """One line per row kind: what an engineer choosing a framework reads first."""
    out = ["## In one table", "",
           "| row | runs | answered | done (of completable) | ended by its own limit, guard or an exception | at the cap | "
           "stopped by the kit's guard | guard interventions | model calls (total) | cost $ (total) | median run, s |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in dict.fromkeys(o.framework for o in outcomes):
        mine = [o for o in outcomes if o.framework == name]
        completable = [o for o in mine if o.done is not None]
        own = [o for o in mine if o.stop not in ("answered",) and not o.stop.startswith(("cap", "kit guard", "wall"))]
        acted = sum(o.interventions or 0 for o in mine)
        out.append(f"| {name} | {len(mine)} | {sum(o.stop == 'answered' for o in mine)} | "
                   f"{sum(bool(o.done) for o in completable)}/{len(completable)} | {len(own)} | "
                   f"{sum(o.stop.startswith('cap') for o in mine)} | {sum(o.stop.startswith('kit guard') for o in mine)} | "
                   f"{acted if any(o.interventions is not None for o in mine) else '—'} | "
                   f"{sum(o.model_calls for o in mine):,} | {sum(o.cost for o in mine):.2f} | {_median_seconds(mine)} |")
    return out


def _median_seconds(outcomes: Sequence[Outcome]) -> str:
    """The median wall time of the runs that kept one (imports included; on a shared machine, an upper bound)."""
    timed = sorted(o.seconds for o in outcomes if o.seconds is not None)
    return f"{timed[len(timed) // 2]:.0f}" if timed else "—"


def _cell(o: Outcome) -> str:
    mark = "" if o.done is None else (" ✓" if o.done else " ✗")
    stop = {"answered": "ans"}.get(o.stop, o.stop.replace("kit guard: ", "guard: ").replace(" calls)", ")"))
    return f"{o.model_calls} {stop}{mark}"


def by_scenario(outcomes: Sequence[Outcome]) -> list[str]:
    """What each loop did on each scenario: model calls, how it ended, ✓ done / ✗ not (none: cannot be)."""
    names = list(dict.fromkeys(o.framework for o in outcomes))
    got = {(o.framework, o.scenario): o for o in outcomes}
    out = ["## What each loop did, scenario by scenario", "",
           "Each cell: model calls, how the run ended (*ans*: answered), ✓ task done, ✗ not done (no mark: the "
           "scenario cannot be completed, an honest stop is right).", "",
           "| scenario | " + " | ".join(names) + " |", "|" + " --- |" * (len(names) + 1)]
    for scenario in dict.fromkeys(o.scenario for o in outcomes):
        out.append(f"| {scenario} | " + " | ".join(_cell(got[n, scenario]) if (n, scenario) in got else ""
                                                    for n in names) + " |")
    return out


def read_table(text: str) -> list[dict[str, str]]:
    """The rows of the results table in docs/bench.md, as dicts by column name (for lesson 7)."""
    after = text.split(MARKER, 1)[-1].strip().splitlines()
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in after if line.startswith("|")]
    return [dict(zip(cells[0], row)) for row in cells[2:]] if len(cells) > 2 else []


def plot(outcomes: Sequence[Outcome], path: str) -> None:
    """A grid, a scenario a line and a row a column: each cell the run's model calls (its colour, on a log
    scale) and ✓ done / ✗ not (none: cannot be completed). Bars would not read at 61 scenarios x 12 rows."""
    import matplotlib  # lazy: a heavy library, needed only for the picture
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    frameworks = list(dict.fromkeys(o.framework for o in outcomes))
    scenarios = list(dict.fromkeys(o.scenario for o in outcomes))
    got = {(o.framework, o.scenario): o for o in outcomes}
    calls = [[got[f, s].model_calls if (f, s) in got else float("nan") for f in frameworks] for s in scenarios]
    fig, ax = plt.subplots(figsize=(2 + 0.95 * len(frameworks), 1.5 + 0.3 * len(scenarios)))
    image = ax.imshow(calls, aspect="auto", cmap="YlOrRd", norm=LogNorm(vmin=1, vmax=max(2, max(
        (o.model_calls for o in outcomes), default=2))))
    for i, s in enumerate(scenarios):
        for j, f in enumerate(frameworks):
            o = got.get((f, s))
            if o is not None:
                mark = "" if o.done is None else (" ✓" if o.done else " ✗")
                ax.text(j, i, f"{o.model_calls}{mark}", ha="center", va="center", fontsize=7,
                        color="white" if o.model_calls >= 30 else "black")
    ax.set_xticks(range(len(frameworks)), frameworks, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(scenarios)), scenarios, fontsize=7)
    ax.xaxis.tick_top()
    plt.setp(ax.get_xticklabels(), rotation=35, ha="left")
    ax.set_title("model calls per run (✓ task done, ✗ not; no mark: cannot be completed)", fontsize=9, pad=8)
    fig.colorbar(image, ax=ax, shrink=0.4, label="model calls")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
