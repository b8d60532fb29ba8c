# ---
# # Lesson 7 source. Edit this file, then rebuild and re-run the notebook:
# #     python notebooks/build.py 07
# # Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# # in prose is computed by a cell (Markdown built from f-strings): never type a measured number.
# ---

# %% [markdown]
# # Lesson 7: fix the design, not the fuse
#
# *About 50 minutes.*
#
# `max_steps` is a brake, not a steering wheel. Lessons 2 to 5 built brakes: budgets, guards, degraded
# answers, resilient tools. They stop the damage; they do not remove the cause. A loop usually comes from
# the design around the model: what it is offered, what it is left to decide, what it can see of its own
# progress, and who decides that the task is done. This lesson redesigns lesson 6's `metric-trend` run so
# that the loop cannot happen, measures the redesign against the guarded loop, and then walks the kinds of
# loop the design layer fixes, each as a naive and a fixed scenario of the catalogue.
#
# | root cause | what it looks like | the layer that fixes it |
# |---|---|---|
# | too many candidate tools | the model picks a display tool, or the wrong one, at every step | **routing**: tools loaded by intent |
# | a blurred decision boundary | the model decides what code could (the period, whether to show a card) | **a state machine**: deterministic decisions in code |
# | low-signal tool results | an empty or ambiguous result invites another try | **structured results** (`ok`, `error_type`, `retryable`, ...: lesson 5) |
# | invisible state | the model cannot see that a step is done | **runtime state and a checklist**, kept by code |
# | vague termination | nothing says when the task is finished | **a verifier or a conditional edge** to the end; `max_steps` last |

# %% [markdown]
# ## Setup

# %%
from __future__ import annotations

import json
from collections import Counter

from kit import ROOT, load_exercise  # notebooks/kit.py: puts the repository root on sys.path; loads solutions/ and exercises/

from IPython.display import Markdown, display
from pydantic import BaseModel, ConfigDict, ValidationError

from reference import Episode, ToolMessage, find
from reference.cli.table import print_table as table
from reference.core.toolresult import read_body
from reference.design.cache import race
from reference.design.plan import PlanError, PlanTemplate, validate_plan
from reference.design.router import route_for
from reference.design.runtime import ChecklistRuntime
from reference.design.state import RunState, load_state
from reference.diagnosis.fleet import fleet_metrics
from reference.diagnosis.timeline import timeline
from reference.harness.trace import Trace
from reference.interview.bank import load_bank
from reference.interview.card import render_markdown
from reference.runs.registry import run_loop
from reference.bench.report import read_table
from reference.runs.runner import completed, evaluate
from reference.sim.scenario.loading import catalogue

LOOPS = ("react", "guarded", "designed")


def traced(scenario, loop, seed=None):
    episode = Episode.from_scenario(scenario, seed=seed, trace=Trace())
    return run_loop(loop, episode), episode


def measured(runs):
    """Fleet metrics (reference/diagnosis/fleet.py) for a list of (scenario, result, episode)."""
    m = fleet_metrics([e.trace for _, _, e in runs])
    rounds = [sum(1 for s in e.ledger.steps if s.tool_calls) for _, _, e in runs]
    return {"runs": m["runs"], "tool rounds": sum(rounds), "duplicate rate": round(m["duplicate_call_rate"], 3),
            "candidate tools": f"{m['candidate_tools']['mean']:.2f}", "answered": f"{m['completion_rate']:.0%}",
            "task done": f"{done(runs)} of {sum(s.expect.completable for s, _, _ in runs)}",
            "tokens": sum(e.trace.tokens for _, _, e in runs)}


def done(runs):
    """Tasks done: completable scenarios answered in budget with what the answer must say. A scenario no
    loop can complete does not count, whatever its answer: an answer is not a task done."""
    return sum(s.expect.completable and completed(s, r) for s, r, _ in runs)


# %% [markdown]
# ## 1. Exercise: design the loop out of metric-trend
#
# Lesson 6 read four design faults in the `metric-trend` trace. Before this lesson shows the kit's
# redesign, build your own in `exercises/ex07_design.py` (its docstring states the task, what you are
# given and the steps; about 85 minutes, estimated from the size of the solution as docs/workshop.md says):
# a router that offers the intent's tools only, the period settled in code, a typed state that refuses
# what it was not built for, an executor that keeps the checklist and ends the run when it is complete,
# and a plan validator.
#
# ```
# loopkit check ex07        # runs tests/test_ex07_design.py against your file
# loopkit hint ex07         # hints escalate: loopkit hint ex07 2, 3, ...
# ```
#
# Write it before you read on: sections 2 and 5 are the kit's answer. The first hint:

# %%
from reference.cli import main as loopkit

exit_code = loopkit(["hint", "ex07", "1"])  # what `loopkit hint ex07 1` prints in a shell

# %% [markdown]
# ## 2. Runnable example: metric-trend, redesigned
#
# Lesson 6 read four design faults in this trace: one candidate set mixes doing and displaying; the period
# is never settled; a UI decision is offered as a tool; no checklist shows that the task is done. The fix,
# one layer for each (reference/design/):
#
# - an **intent router** decides the task family in code and loads only its tools; when it is not sure,
#   it offers a small safe set (no more tools than a known intent, none its annotations mark destructive,
#   the ones the request names) or asks the user a clarifying question, never every tool;
# - the **period slot** is settled in code from the request ("two weeks" is `14d`), and the parameter is no
#   longer offered to the model;
# - the **trend card is rendered by code** once the data is there, not offered as a tool;
# - **runtime state with a checklist** (`record the reading`, `get the 14-day trend`) is ticked by the
#   runtime from validated results; when every tool item is done, no tool is offered, so the next request
#   can only be the answer. The model proposes, code decides, the runtime keeps the record;
# - **the guard of lesson 3 stays** in the loop as the last line.

# %%
trend = find("metric-trend")
route = route_for(trend)
print("intent:", route.intent, "| tools:", route.tools, "| slots:", route.slots, "| rendered by code:", route.renders)
print("offered before:", [t.name for t in trend.tools])

# %%
runs = {loop: traced(trend, loop) for loop in LOOPS}
designed, episode = runs["designed"]
print(timeline(episode.trace))
for r in episode.trace.records:
    if r["kind"] == "event" and r["event"] == "design":
        print(f"step {r['step']}: {r['action']:8}", {k: v for k, v in r.items() if k not in ("kind", "event", "step", "t", "action")})

# %%
offered = [len(r["offered"]) for r in episode.trace.records if r["kind"] == "step"]
table([{"loop": loop, **measured([(trend, result, e)])} for loop, (result, e) in runs.items()])
display(Markdown(f"""
The designed run makes **{designed.model_calls}** requests: the model proposed `30d`, code sent `14d`; after
two recorded items the third request offered no tool and got the answer. The candidate set per request
went {offered} (every request of the naive run was offered {len(trend.tools)} tools). The guard never had to
speak: it is still there, for the design fault nobody has found yet.
"""))

# %% [markdown]
# ## 3. Measured side by side: the catalogue
#
# The same three loops on every catalogue scenario, the metrics of lesson 6 (reference/diagnosis/fleet.py):
# tool rounds, duplicate tool calls, completion, tokens, and the candidate tool-set size per request.

# %%
fleet = {loop: [(s, *traced(s, loop)) for s in catalogue()] for loop in LOOPS}
rows = [{"loop": loop, **measured(runs)} for loop, runs in fleet.items()]
table(rows)
meets = {loop: sum(all(c.ok for c in evaluate(s, r)) for s, r, _ in runs) for loop, runs in fleet.items()}
display(Markdown(f"""
Over {len(catalogue())} scenarios the designed loop makes {rows[2]['tool rounds']} tool rounds against
{rows[1]['tool rounds']} (guarded) and {rows[0]['tool rounds']} (naive), and spends {rows[2]['tokens']:,} tokens
against {rows[1]['tokens']:,} and {rows[0]['tokens']:,}. *Task done* counts only the completable scenarios
answered in budget with what the answer must say: the designed loop does **{rows[2]['task done']}**, the
guarded loop {rows[1]['task done']}. *Answered* is higher for the designed loop ({rows[2]['answered']}) because
a checklist that ends the run gets a reply out of every model, including on scenarios no loop can complete;
a reply is not a task done. It also meets fewer `expect` blocks ({meets['designed']} against
{meets['guarded']}): those blocks describe loops where the model decides when to stop.
"""))

# %% [markdown]
# **Which tasks regress, and why.** Every completable scenario the guarded loop does and the designed
# loop does not, with the reason read from the two runs:

# %%
def results(run):
    """The distinct data of the run's successful tool results (not an answer from the state, not feedback)."""
    out = set()
    for m in run.messages:
        body = read_body(m.content) if isinstance(m, ToolMessage) else None
        if body and body.get("ok") is True and "data" in body and "note" not in body:
            out.add(json.dumps(body["data"], sort_keys=True))
    return out


guarded_runs = {s.name: r for s, r, _ in fleet["guarded"]}
regressed = []
for s, r, e in fleet["designed"]:
    g = guarded_runs[s.name]
    if not (s.expect.completable and completed(s, g) and not completed(s, r)):
        continue
    if route_for(s).question is not None:
        why = "unsure router: asked a question"
    elif results(g) - results(r):
        why = "checklist closed too early"  # the guarded run had a result the designed run never got
    else:
        why = "fetched, not said"
    missing = [t for t in s.expect.answer_contains if t.lower() not in (r.answer or "").lower()]
    regressed.append({"scenario": s.name, "tool calls (guarded, designed)": f"{g.tool_calls}, {r.tool_calls}",
                      "answer lacks": ", ".join(missing), "why": why})
table(regressed)
reasons = Counter(row["why"] for row in regressed)
display(Markdown(f"""
{len(regressed)} regressions: {', '.join(f'{n} {why}' for why, n in reasons.most_common())}.

- **Checklist closed too early** (the guarded run got a result the designed run never did):
  {reasons.get("checklist closed too early", 0)} here, because the runtime holds to one rule: an item is done
  only when what it needs is in hand, a successful result that is the outcome, not a call made. A build that answers `queued` is a call made
  (the runtime reads work still under way as the standards for long-running work name it: a status of
  queued, pending, in progress or running, MCP's `working`, AIP-151's `done: false`), so the tool stays
  offered until the build has passed; and a checklist lists every result the answer needs (two returns
  to compare are two items, not one).
- **Fetched, not said.** When the checklist closes the tools, the next request is a tool-less one; the
  scripted model then writes its stand-in answer, the raw results cut at 200 characters, which lacks the
  words the task asks for even where the facts were fetched. A real model would phrase them; the check
  stays on the content, because an answer that exists is not an answer that helps.
- **Unsure router.** A router that cannot tell the intent asks instead of guessing; a question is the right reply, and
  not a task done.
"""))

# %% [markdown]
# **Evaluating the router.** A router is a classifier, and is measured like one, on labelled requests
# and before it ships: here the label of each catalogue request is the set of tools its task needs (the
# checklist's tools and the tools its `expect` block says must be called). A **misroute** is a route that
# leaves out a tool the task needs (the model then cannot do the task, or loops looking for a way); a
# **question** is a route that asks the user; the **candidate set** is what every request pays for.

# %%
evaluated = []
for s in catalogue():
    route = route_for(s)
    needed = {i.tool for i in s.checklist if i.tool} | set(s.expect.must_call)
    evaluated.append({"scenario": s.name, "route": route.confidence if route.question is None else "question",
                      "offered": len(route.tools), "of": len(s.tools), "misses": sorted(needed - set(route.tools))})
by_route = Counter(r["route"] for r in evaluated)
misroutes = [r for r in evaluated if r["misses"]]
table([{**r, "misses": ", ".join(r["misses"])} for r in misroutes])
display(Markdown(f"""
{len(evaluated)} requests: {by_route['intent']} routed to a known intent, {by_route['unsure']} unsure (a small safe
set; for {sum(r['route'] == 'unsure' and r['offered'] == r['of'] for r in evaluated)} of them the scenario has no
more tools than that, so the set is all it has), {by_route['question']} answered with a clarifying question.
Misroutes: **{len(misroutes)}** ({len(misroutes) / len(evaluated):.0%}), the rows above. Candidate tools per
request: {sum(r['offered'] for r in evaluated) / len(evaluated):.2f} offered, against
{sum(r['of'] for r in evaluated) / len(evaluated):.2f} if every tool were. Track the misroute rate per intent like any fleet metric, read every
misroute's trace, and add the request to the router's labelled set: a keyword router is cheap and
brittle (it misses "Log my weight" for *record*), and the number says when to replace it with a
classifier or a tool search over the tools' descriptions.
"""))

# %% [markdown]
# ## 4. What goes wrong: the kinds of loop, naive and fixed
#
# Each kind of loop has a naive and a fixed scenario in the catalogue. The fixed scenario is the same task
# under the fixed design (one plan kept in state, a recorded write, a verified condition, a prompt that says
# when a result is current); the naive one is also run with the `designed` loop.
#
# | kind | naive | fixed |
# |---|---|---|
# | plan-and-execute re-plans every round | `replan-every-round` | `replan-once` |
# | tool-call format or parser mismatch | `malformed-calls`, `schema-mismatch`, `bad-date-format` (lesson 5) | the same, with lesson 5's executor |
# | a lost state update | `lost-update` | `lost-update-fixed` |
# | drifting termination semantics | `drifting-termination` | `drifting-termination-fixed` |
# | a prompt that invites re-checking | `recheck-prompt` | `recheck-prompt-fixed` |

# %%
pairs = [("replan-every-round", "replan-once"), ("lost-update", "lost-update-fixed"),
         ("drifting-termination", "drifting-termination-fixed"), ("recheck-prompt", "recheck-prompt-fixed")]
rows = []
for naive, fixed in pairs:
    for name, loop in ((naive, "react"), (naive, "guarded"), (naive, "designed"), (fixed, "react")):
        result, e = traced(find(name), loop)
        rows.append({"scenario": name, "loop": loop, "stop": result.stop_reason.value, "model calls": result.model_calls,
                     "tool calls": result.tool_calls, "task done": completed(find(name), result)})
table(rows)
writes = traced(find("lost-update"), "react")[1].tools.tools["record_metric"].calls
print(f"\nlost-update with the naive loop: the reading was written {writes} times")

# %% [markdown]
# **A shared cache under concurrency.** Two runs keep their checklist in one process-wide cache. Run A
# records its reading at 0.2 s on the simulated clock; run B, another user, checks the cache at 0.3 s, finds
# `metric_recorded` true, and skips its own write. Nothing fails; B's reading is simply never stored. The
# fix: state per run, or keys that carry the run.

# %%
for carry in (False, True):
    outcome = race(keys_carry_the_run=carry)
    print("keys carry the run" if carry else "one key for every run", "-> lost:", outcome["lost"])
    for t, run, what in outcome["timeline"]:
        print(f"   {t:4} s  {run}: {what}")

# %% [markdown]
# ## 5. Typed state, plan validation, result validation
#
# **The "0.95" pitfall, as Python behaves.** A confidence stored as text and compared with a number does not
# silently compare true: Python 3 raises `TypeError`. The real failures are quieter.

# %%
raw = '{"confidence": "0.95", "done": "false"}'  # a JSON text from the model, stored as state unvalidated
state = json.loads(raw)
try:
    state["confidence"] > 0.8
except TypeError as exc:
    print("str > float:", type(exc).__name__, "-", exc)
print("str > str:  '0.95' > '0.8' is", "0.95" > "0.8", "| '10' > '9' is", "10" > "9", "(character by character)")
print("truthiness: bool('false') is", bool(state["done"]), "| bool('0') is", bool("0"))


class Lax(BaseModel):
    confidence: float
    done: bool


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    confidence: float
    done: bool


print("pydantic, lax:", Lax.model_validate_json(raw), "-> 0.95 > 0.8 is", Lax.model_validate_json(raw).confidence > 0.8)
try:
    Strict.model_validate(state)
except ValidationError as exc:
    print("pydantic, strict:", exc.error_count(), "errors:", "; ".join(e["msg"] for e in exc.errors()))

# %% [markdown]
# Lax mode coerces the text to the types you declared (`"false"` becomes `False`, not the truthy string);
# strict mode refuses text where a number belongs, so the bug is found where it enters. The runtime's state
# (reference/design/state.py) is strict, forbids unknown fields, and carries a **schema version**: a stored
# record from an older version is upgraded, an unknown one refused.

# %%
old = {"schema_version": 1, "intent": "record_and_trend", "done": ["record the reading"],
       "checklist": [{"name": "record the reading", "tool": "record_metric"}, {"name": "get the 14-day trend", "tool": "get_metric_trend"}]}
print([(i.name, i.done) for i in load_state(old).checklist])
for bad in ({**old, "schema_version": 3}, {"schema_version": 2, "intent": "x", "checklist": [], "finished": True}):
    try:
        load_state(bad)
    except (ValueError, ValidationError) as exc:
        print("refused:", str(exc).splitlines()[0][:110])

# %% [markdown]
# **Plan validation.** A plan-and-execute agent's plan is checked against the intent's template before any
# step runs: required steps, allowed tools, dependencies. Every reason comes back at once, so the planner
# can fix its plan in one turn. A plan that passes is kept in the state and executed once (`replan-once`).

# %%
template = PlanTemplate(intent="trip", required=("get_weather", "search_trains"),
                        allowed=("get_weather", "search_trains", "search_hotels"), order=(("get_weather", "search_trains"),))
good = {"intent": "trip", "steps": [{"id": "weather", "tool": "get_weather"}, {"id": "trains", "tool": "search_trains", "after": ["weather"]}]}
print([s.tool for s in validate_plan(good, template).steps])
for bad in ({"intent": "trip", "steps": [{"id": "trains", "tool": "search_trains", "after": ["weather"]}, {"id": "book", "tool": "book_train"}]},
            '{"intent": "trip", "steps": [], "note": "replan later"}'):
    try:
        validate_plan(bad, template)
    except PlanError as exc:
        print("refused:", *exc.reasons, sep="\n  ")

# %% [markdown]
# **Tolerant parsing, in layers, then validation.** What a model writes is parsed by the cheapest layer
# that works: strict JSON; then JSON inside a code fence or after prose; then a repair of known slips
# (trailing commas); and whatever comes out is validated against the schema. A value that no layer can
# read is refused with a message the model can act on, never guessed. Lesson 5's executor does the
# refusing for tool arguments (`invalid_json`, `invalid_argument` with the field); the runtime's
# **result validation** (reference/design/runtime.py `validated`) does it for results before they enter the
# state: `ok` true, an object, not `success: false` (HTTP 200 with a business failure), not empty, not pending.

# %% [markdown]
# ## 6. Workflow or agent
#
# The same task as a fixed pipeline and as an agent. The data that decides: how much the path varies and
# how the steps are distributed over a fleet of runs. `fleet-lookup` (find the order, track the parcel,
# answer), 100 seeded runs with the guarded loop, against a pipeline that makes its checklist's calls in
# code and asks the model once, for the answer.

# %%
lookup = find("fleet-lookup")
paths, steps = Counter(), []
for seed in range(1, 101):
    result, e = traced(lookup, "guarded", seed=seed)
    path = [r["tool_calls"][0]["name"] if r["tool_calls"] else "answer" for r in e.trace.records if r["kind"] == "step"]
    paths[" > ".join(path)] += 1
    steps.append(result.model_calls)
pipeline = len([i for i in lookup.checklist if i.tool]) + 1
steps.sort()
display(Markdown(f"""
{len(paths)} distinct paths over 100 runs; the commonest, `{paths.most_common(1)[0][0]}`, in
{paths.most_common(1)[0][1]} runs. Model requests per run: median {steps[49]}, P95 {steps[94]}, max {steps[-1]},
against one request for the pipeline, whose {pipeline - 1} tool calls are made by code before the model is asked
for the answer. When nearly every run takes one path, a workflow is cheaper and cannot loop; an agent
earns its place where the path depends on what the tools return. **ReAct** decides each step after seeing
the last result (flexible, one request per step, easy to loop); **plan-and-execute** plans once and runs
the plan (fewer model calls, a plan that can be validated, but stale if a result changes the task).
"""))

# %% [markdown]
# ## 7. Frameworks: a conditional end, a step cap, a typed state
#
# How five frameworks express the three things, from their own source (versions named; the defaults move):
#
# | framework | conditional end | step cap, default | at the cap | typed state |
# |---|---|---|---|---|
# | LangGraph 1.2.24 | a conditional edge to `END` | `recursion_limit`, supersteps: 10,007 (`langgraph/_internal/_config.py`, `LANGGRAPH_DEFAULT_RECURSION_LIMIT`); `langchain.agents.create_agent` compiles its agent with 9,999; `langchain_core` still defines 25, the default of older releases | raises `GraphRecursionError` | a `TypedDict` or pydantic state schema |
# | OpenAI Agents SDK 0.24.0 | a final output (no tool call), or `tool_use_behavior` | `max_turns` = 10 (`agents/run_config.py` `DEFAULT_MAX_TURNS`) | raises `MaxTurnsExceeded` | `output_type` (a pydantic model); run context |
# | pydantic-ai 2.68.0 | a final result of the output type | `UsageLimits.request_limit` = 50 (`pydantic_ai/usage.py`) | raises `UsageLimitExceeded` | typed `deps` and `output_type` |
# | smolagents 1.26.0 | the `final_answer` tool | `max_steps` = 20 (`smolagents/agents.py`, `MultiStepAgent.__init__`) | asks the model for a final answer (`provide_final_answer`), records `AgentMaxStepsError` | - |
# | CrewAI 1.15.30 | the agent's final answer | `max_iter` = 25 (`crewai/agents/agent_builder/base_agent.py`) | one more LLM call with a forced-final-answer message (`handle_max_iterations_exceeded`) | pydantic `output_pydantic` |
#
# A LangGraph agent built as a model node and a tools node spends two supersteps per tool round (the
# model asks, the tools run) and one more for the answer. A fresh run sets `stop = step + recursion_limit
# + 1` from step -1 and checks `step > stop` before every superstep, the last one that finds nothing left
# to run included (`langgraph/pregel/_loop.py`), so L supersteps can run and `recursion_limit` L allows
# (L - 1) / 2 tool rounds: 10,007 allows 5,003, `create_agent`'s 9,999 (langchain's `agents/factory.py`) 4,999, a fuse that
# never blows in a useful time. The fix is not a smaller number; it is state that says when the task is
# done. The tools always route back to the agent, which writes the answer; once the state is complete the
# agent is offered no tools, so its reply has no tool calls and that edge goes to `END`:
#
# ```python
# def agent(state: State) -> dict:
#     done = state["metric_recorded"] and state["trend_loaded"]   # ticked by the tools node, in code
#     model = llm if done else llm.bind_tools(tools)              # done: nothing left to call, answer
#     return {"messages": [model.invoke(state["messages"])]}
#
# def route(state: State) -> str:
#     return "tools" if state["messages"][-1].tool_calls else END
#
# builder.add_conditional_edges("agent", route)                  # a reply without tool calls ends the run
# builder.add_edge("tools", "agent")                            # never tools -> END: the answer comes after
# graph.invoke(inputs, {"recursion_limit": 2 * rounds_p95 + 1 + margin})   # the fuse, from the P95, stays
# ```
#
# The frameworks are not dependencies of the kit: this code is shown, not run. Their measured behaviour
# on the kit's scenarios is in docs/bench.md (`loopkit bench` drives each one's default loop through
# `loopkit serve`, each in its own venv); the cell below reads that file, no network.

# %%
bench_rows = read_table((ROOT / "docs" / "bench.md").read_text(encoding="utf-8"))
by_framework: dict[str, list[dict[str, str]]] = {}
for row in bench_rows:
    by_framework.setdefault(row["framework"], []).append(row)
table([{"framework": name,
        "runs": len(rows),
        "answered": sum(r["stopped"] == "answered" for r in rows),
        "really done": f"{sum(r['done'] == 'yes' for r in rows)}/{sum(r['done'] != '—' for r in rows)}",
        "model calls (max)": max(int(r["model calls"]) for r in rows),
        "how the others stopped": ", ".join(sorted({r["stopped"] for r in rows} - {"answered"})),
        "cost $ (all runs)": f"{sum(float(r['cost $']) for r in rows):.2f}"}
       for name, rows in by_framework.items()])

# %% [markdown]
# ## 8. If you rebuilt the tool-calling architecture
#
# One closed loop, each part with one job: a **router** (intent in code, the tools it allows, slots
# settled); a **registry** (each tool with its schema, its owner, its result contract, whether it is
# volatile, what can replace it); an **executor** (validation, retries in code, actionable errors, circuit
# breakers: lesson 5); a **runtime state and checklist** that ends the run; a **guard** as the last line
# (lesson 3); a **trace** of every run (lesson 6); and an **eval** that replays the traces as regression
# cases and watches the fleet metrics, whose findings go back into the router, the registry and the
# checklists. In the kit: reference/design, sim/tools, parts/executor, parts/guards, harness/trace,
# diagnosis and runs.

# %% [markdown]
# ## 9. Many tools: namespaces, tool search, granularity; and a model swap
#
# Routing (section 2) works while each intent needs a handful of tools. Put every tool of this kit's
# catalogue in one registry and two problems show: names collide, and no request should see them all.

# %%
import math
import re

definitions = {}  # one entry per distinct definition: (name, schema) -> (scenario, tool)
for s in catalogue():
    for t in s.tools:
        definitions.setdefault((t.name, json.dumps(t.parameters, sort_keys=True)), (s.name, t))
names = Counter(name for name, _ in definitions)
clashes = sorted(name for name, n in names.items() if n > 1)
display(Markdown(f"""
The catalogue defines **{len(definitions)}** tools under **{len(names)}** names: {len(clashes)} names
({", ".join(f"`{n}`" for n in clashes)}) have two or more different schemas. In one registry they would
collide, and a model offered both cannot tell them apart. A **namespace** per service (`travel.search_flights`,
`hotels.check_room`) keeps them apart; clients that mix several MCP servers prefix each tool with its
server's name for the same reason (Claude Code's `mcp__server__tool`).
"""))

# %% [markdown]
# **Tool search, or progressive disclosure.** Instead of every definition in the context, the model is
# offered a search over the registry and sees a definition only once a search returns it. The search is
# a new component that can fail: below, a plain word search (words weighted by how rare they are in the
# registry), measured on the catalogue's own requests. A request is served when every tool its scenario
# needs is among the top `k`.

# %%
def words(text):
    return set(re.findall(r"[a-z]+", text.lower().replace("_", " ")))


entries = [(words(t.name + " " + (t.description or "")), t.name) for _, t in definitions.values()]
rarity = Counter(w for entry, _ in entries for w in entry)


def search_tools(request, k):
    scored = sorted(entries, key=lambda e: -sum(math.log(len(entries) / rarity[w]) for w in words(request) & e[0]))
    return list(dict.fromkeys(name for _, name in scored))[:k]


rows = []
for k in (3, 5, 8):
    served = sum({t.name for t in s.tools} <= set(search_tools(s.user, k)) for s in catalogue())
    rows.append({"top k": k, "definitions in context": k, "requests served": f"{served} of {len(catalogue())}"})
table(rows)

# %% [markdown]
# A search that misses a needed tool is a misroute: the model cannot call what it never saw, and it
# loops or guesses. Measure the search like the router, on your own requests, and give a request the
# search cannot serve a clarifying question or a small safe set, never the whole registry.
#
# **Granularity.** Tools split too finely make the model choose between near neighbours at every step;
# merged too far, one tool hides a write behind a read. The rule: merge actions on one resource that share
# their permissions and side effects behind one tool with an `action` enum; keep apart actions whose side
# effects differ. MCP annotations say it in a standard way (`readOnlyHint`); without them the kit reads the
# HTTP method or, last, the name's verb (reference/parts/guards/effects.py, lesson 3). Merge only tools that
# agree on whether they write.

# %%
from reference.parts.guards.effects import ToolInfo


def writes(tool):
    return ToolInfo(tool.name, tool.parameters, tool.description, tool.annotations, tool.volatile).writes


def merged(name, tools):
    """One tool with an `action` enum for tools that agree on whether they write; a ValueError otherwise."""
    if len({writes(t) for t in tools}) > 1:
        raise ValueError(f"{', '.join(f'{t.name} (writes: {writes(t)})' for t in tools)}: keep them apart")
    properties = {"action": {"type": "string", "enum": [t.name for t in tools]}}
    for t in tools:
        properties.update(t.parameters.get("properties", {}))
    return {"name": name, "parameters": {"type": "object", "properties": properties, "required": ["action"]}}


deploy_tools = [t for t in find("fleet-troubleshoot").tools if t.name.startswith("get_deploy")]
print(json.dumps(merged("deploys", deploy_tools), indent=1))
try:
    merged("metric", [t for t in find("metric-trend").tools if t.name != "render_trend_card"])
except ValueError as refused:
    print("refused:", refused)

# %% [markdown]
# **A model swap is not the fix, and not free either.** Changing the model changes every case at once: a
# stronger one may misroute less and call more tools. The kit's scenarios come in pairs where only the model
# differs (one heeds a warning, one does not), so a swap can be played: the same guarded loop, the same
# cases, a new model, and the case-level diff that the regression set exists for.

# %%
pairs = []
known = {s.name for s in catalogue()}
for n in sorted(known):
    if n.endswith("-cooperative") and n.removesuffix("-cooperative") in known:
        pairs.append((n, n.removesuffix("-cooperative")))
    if n.endswith("-stubborn") and n.removesuffix("-stubborn") in known:
        pairs.append((n.removesuffix("-stubborn"), n))
rows = []
for before, after in pairs:
    case = find(before)  # the case, as the regression set holds it
    old = run_loop("guarded", Episode.from_scenario(case))
    new = run_loop("guarded", Episode.from_scenario(find(after)))  # the same task, the swapped model
    rows.append({"case": before, "old model": "pass" if all(c.ok for c in evaluate(case, old)) else "FAIL",
                 "new model": "pass" if all(c.ok for c in evaluate(case, new)) else "FAIL",
                 "new model's stop": new.stop_reason.value})
table(rows)
regressed = [r["case"] for r in rows if r["old model"] == "pass" and r["new model"] == "FAIL"]
display(Markdown(f"""
Not a line of the loop changed, and **{len(regressed)} of {len(rows)}** cases went from pass to fail: the
guard still stops the new model for the right reason, but the user no longer gets an answer. Only a run of
the evaluation set shows which cases moved. The model sets the ceiling; the runtime sets the floor; the
evaluation is re-run after every swap.
"""))

# %% [markdown]
# ## 10. The reference solution, graded
#
# The reference solution on `metric-trend` and `lost-update` (`load_exercise("ex07", "exercises")` loads yours):

# %%
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts

solution = load_exercise("ex07")
for name in ("metric-trend", "lost-update"):
    e = Episode.from_scenario(find(name))
    executor = solution.DesignedExecutor(e)
    result = guarded_loop(e, 8, Parts(executor=executor))
    print(f"{name}: {result.stop_reason.value} in {result.model_calls} requests; record_metric ran "
          f"{e.tools.tools['record_metric'].calls} time(s); state: recorded={executor.state.metric_recorded}, "
          f"trend={executor.state.trend_loaded}")

# %% [markdown]
# ## 11. The interview
#
# The questions of lesson 7, from the kit's question bank (reference/interview/questions.yaml):

# %%
LANG = "en"  # the bank's language: "en" or "zh" (中文)
display(Markdown(render_markdown(load_bank(), LANG, lesson=7)))
