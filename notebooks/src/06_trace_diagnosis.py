# ---
# # Lesson 6 source. Edit this file, then rebuild and re-run the notebook:
# #     python notebooks/build.py 06
# # Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# # in prose is computed by a cell (Markdown built from f-strings): never type a measured number.
# ---

# %% [markdown]
# # Lesson 6: trace-based diagnosis
#
# *About 45 minutes.*
#
# Lessons 1 to 5 built a loop that stops for the right reason. This lesson is about the runs you did
# not watch: a user reports that "the agent went round in circles and charged us", and all you have is
# what the run left behind. In the kit, every run leaves a **trace**, one JSON object a line, written by
# the harness as the run happens (reference/harness/trace.py; docs/tracing.md lists the records).
#
# The method is layered, cheapest first:
#
# 1. **stop reasons**: how did the run end? Over a fleet, their distribution is the first health metric;
# 2. **shape**: what did the trajectory look like (docs/glossary.md names the shapes: repeat, cycle,
#    rephrase, drift, error_storm,
#    blowup, polling, healthy)? Each shape has its fix;
# 3. **text**: only then read the arguments, results and the model's words, at the step the shape
#    points to.
#
# Then the lesson turns the bad run into a **regression case** that fails on the naive loop and
# passes on the guarded one, computes **fleet metrics and alerts**, and walks the **40-step incident**
# from its trace, minute by minute. Offline and deterministic: scripted model, fake tools, simulated clock.

# %% [markdown]
# ## Setup

# %%
from __future__ import annotations

import json
import math
import tempfile
from collections import Counter
from pathlib import Path

from kit import ROOT, load_exercise  # notebooks/kit.py: puts the repository root on sys.path; loads solutions/ and exercises/

import logging

logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # no font-cache notice on a fresh machine
import matplotlib.pyplot as plt
import yaml
from IPython.display import Markdown, display

from reference import Episode, find
from reference.core.redact import redact_text
from reference.diagnosis.fleet import alerts, fleet_metrics, report
from reference.diagnosis.replay import regression_case
from reference.diagnosis.shapes import calls_of, classify
from reference.diagnosis.timeline import timeline
from reference.harness.trace import Trace
from reference.interview.bank import load_bank
from reference.interview.card import render_markdown
from reference.runs.registry import run_loop
from reference.runs.runner import evaluate
from reference.sim.scenario.loading import catalogue, parse_scenario
from reference.cli.table import print_table as table


def traced(scenario, loop="react", seed=None, capture=False):
    """One run of `scenario` with `loop`; returns (result, trace)."""
    episode = Episode.from_scenario(scenario, seed=seed, trace=Trace(capture_content=capture))
    return run_loop(loop, episode), episode.trace


# %% [markdown]
# ## 1. Concept: what a trace holds
#
# The worked example is `metric-trend`, taken from a published trace: the user asks to record a blood
# pressure reading and see the two-week trend. Run the lesson-1 loop on it and count the records.

# %%
trend = find("metric-trend")
naive, trace = traced(trend)
print(Counter(r["kind"] for r in trace.records))
step = next(r for r in trace.records if r["kind"] == "step")
print(json.dumps({k: step[k] for k in ("step", "input_tokens", "output_tokens", "tokens_so_far", "offered",
                                       "tool_calls")}, indent=1)[:900])

# %% [markdown]
# Each `step` is one model request: its size, its cost, the **candidate tool set** it was offered, and
# the calls it made, each with a **fingerprint** (tool plus canonical arguments) and a short digest of it.
# `tool` records are attempts (a call retried in code has several), `results` what the model read back,
# `event` what a guard or a budget said, `finish` the stop reason and the totals.

# %% [markdown]
# ## 2. Exercise: shapes, fleet metrics and a regression case, from traces
#
# Before the reference reads this trace for you, write the three functions that read any trace, in
# `exercises/ex06_trace_diagnosis.py` (its docstring states the task, what you are given and the steps;
# about 60 minutes, estimated from the size of the solution as docs/workshop.md says):
#
# - `shape(trace)`: `error_storm`, `cycle`, `repeat` or `healthy`, from the calls in order;
# - `fleet(traces)`: runs, stop reasons, the share that hit the step limit, P99 steps, the duplicate-call rate;
# - `regression_case(trace)`: the run replayed as a scenario whose `expect` block the naive loop fails and
#   a fixed loop passes.
#
# ```
# loopkit check ex06        # runs tests/test_ex06_trace_diagnosis.py against your file
# loopkit hint ex06         # hints escalate: loopkit hint ex06 2, 3, ...
# ```
#
# Write it before you read on: sections 3 to 5 show the kit's own versions. The first hint:

# %%
from reference.cli import main as loopkit

exit_code = loopkit(["hint", "ex06", "1"])  # what `loopkit hint ex06 1` prints in a shell

# %% [markdown]
# ## 3. Runnable example: the three layers on metric-trend
#
# **Layer 1, the stop reason**, then **layer 2, the shape**: `loopkit trace FILE` prints this timeline,
# one line per step, repeats marked with the step that made the call first.

# %%
print(timeline(trace))

# %%
diagnosis = classify(trace)
display(Markdown(f"""
The run stopped on **{naive.stop_reason.value}** after {naive.model_calls} model calls. Its shape is
**{diagnosis.shape}**, detectable at step **{diagnosis.detected_at}** ({diagnosis.evidence[diagnosis.shape]});
**{diagnosis.tokens_after:,}** of its {naive.usage.total_tokens:,} tokens were spent after that step,
which is what a guard there would have saved. No call repeats back to back: a guard that compares each
call only with the one before it sees nothing.
"""))

# %% [markdown]
# The same run as a picture: a step x tool timeline (a dot per call, a ring where the call repeats an
# earlier fingerprint) with the cumulative tokens.

# %%
def picture(trace, title):
    calls = calls_of(trace.records)
    steps = [r for r in trace.records if r["kind"] == "step"]
    tools = list(dict.fromkeys(c.tool for c in calls))
    fig, ax = plt.subplots(figsize=(8, 3.2))
    seen = set()
    for c in calls:
        again = c.fingerprint in seen
        seen.add(c.fingerprint)
        ax.scatter(c.step, tools.index(c.tool), s=90, facecolors="none" if again else "C0", edgecolors="C0")
    ax.set_yticks(range(len(tools)), tools)
    ax.set_xlabel("step (ring: the same call again)")
    ax.set_title(title)
    tokens = ax.twinx()
    tokens.plot([s["step"] for s in steps], [s["tokens_so_far"] for s in steps], color="C3")
    tokens.set_ylabel("tokens so far", color="C3")
    plt.tight_layout()
    plt.show()


picture(trace, f"metric-trend, lesson-1 loop: {diagnosis.shape}")

# %% [markdown]
# **Layer 3, the text**, read only where the shape points. Four diagnoses come out of this trace, each
# computed below from its records:

# %%
run = trace.records[0]
offered = step["offered"]
periods = [c.arguments["period"] for c in calls_of(trace.records) if c.tool == "get_metric_trend"]
ui_tools = [t["name"] for t in run["tools"] if "show" in t["description"].lower()]
done_at = {}
for c in calls_of(trace.records):
    for item in run["checklist"]:
        if item.get("tool") == c.tool and all(c.arguments.get(k) == v for k, v in item.get("when", {}).items()):
            done_at.setdefault(item["item"], c.step)
display(Markdown(f"""
1. **One candidate set mixes doing and displaying.** Every request was offered {offered}: recording,
   fetching and rendering side by side, so showing the card competes with answering.
2. **The period is never settled in a slot.** The model asked for the trend with periods {periods}: the
   user said "two weeks", and nothing in code turned that into `14d` before the first call.
3. **A UI decision is offered as a tool.** {ui_tools} shows something in the app; whether to show a card
   is the product's decision, not the model's, and every render invites another fetch.
4. **No checklist shows the task is done.** The checklist items with a tool were all done by step
   {max(done_at.values())} ({done_at}); the loop never looked, and went on to step {naive.model_calls}.

These are design faults (lesson 7 redesigns the tools and the state). This lesson's job is to see them
in a trace, stop the damage, and make sure the case never comes back unnoticed.
"""))

# %% [markdown]
# ## 4. Fix and measure: the guarded loop, and the case entering the regression set
#
# The guarded loop (lessons 2 to 5) on the same scenario, and the fleet metrics of each run:

# %%
guarded, guarded_trace = traced(trend, "guarded")
rows = []
for loop, t in (("react", trace), ("guarded", guarded_trace)):
    m = fleet_metrics([t])
    rows.append({"loop": loop, "stop": m["stop_reasons"], "tool rounds": m["tool_rounds"]["general"]["p50"],
                 "duplicate rate": round(m["duplicate_call_rate"], 3), "tokens": t.tokens})
table(rows)
print()
print(timeline(guarded_trace))

# %% [markdown]
# Now turn the naive trace into a regression case (`loopkit replay TRACE -o case.yaml --regression`):
# the same run, call ids and all, with an `expect` block that describes the fix, not only the fuse: the
# **kind of stop** that ends this shape (a cycle is a loop: a guard's stop, or one for want of
# progress; never the step limit), fewer model calls, the tools that answered before the loop showed
# (`must_call`: the fix must not lose that work), and the failed calls that must not be sent again
# unchanged (`must_not_repeat`; none here: every call in this run succeeded, and a read that succeeded may
# be re-checked once, its answer may have moved). It fails on the naive loop and passes on the guarded
# one: the case enters the regression set.

# %%
case = parse_scenario(regression_case(trace), "metric-trend-case.yaml")
print(yaml.safe_dump(regression_case(trace)["expect"], sort_keys=False))
for loop in ("react", "guarded"):
    result = run_loop(loop, Episode.from_scenario(case))
    failed = [c.detail for c in evaluate(case, result) if not c.ok]
    print(f"{loop:8} {'PASS' if not failed else 'FAIL'}  {failed}")

# %% [markdown]
# ## 5. The fleet: stop reasons, steps per intent, alerts
#
# One run tells a story; a fleet tells you whether it is rare. Alerts watch **traffic**: seeded fleets of
# the two task families (`fleet-lookup`, `fleet-troubleshoot`), plus the one runaway request of section 6.
# The catalogue is a test set, not traffic: most of its scenarios loop on purpose, so it stays out.

# %%
fleet = [traced(s)[1] for s in catalogue()]  # the test set, every scenario once (the exercise reads it)
fleet += [traced(find("fleet-lookup"), seed=s)[1] for s in range(1, 101)]
fleet += [traced(find("fleet-troubleshoot"), seed=s)[1] for s in range(1, 101)]
runaway = traced(find("incident-40-step"))[1]
traffic = fleet[len(catalogue()):] + [runaway]
metrics = fleet_metrics(traffic)
rows = report(traffic)
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
left.bar(list(metrics["stop_reasons"]), list(metrics["stop_reasons"].values()))
left.set_title("stop reasons")
left.tick_params(axis="x", rotation=30)
intents = sorted({t.records[0]["intent"] for t in traffic})
right.boxplot([[r["steps"] for r, t in zip(rows, traffic) if t.records[0]["intent"] == i] for i in intents])
right.set_xticks(range(1, len(intents) + 1), intents)
right.set_title("steps per run, by intent")
plt.tight_layout()
plt.show()

# %%
table([{k: a[k] for k in ("alert", "value", "threshold", "fires")} for a in alerts(metrics)])
tested = fleet_metrics(fleet[: len(catalogue())])
rank = math.ceil(0.99 * metrics["runs"])
worst = max(rows, key=lambda r: r["cost_usd"])
display(Markdown(f"""
{metrics['runs']} runs: completion {metrics['completion_rate']:.0%}, duplicate tool calls
{metrics['duplicate_call_rate']:.1%}, tool errors {metrics['tool_error_rate']:.1%}, steps that added nothing
new {metrics['stale_step_rate']:.1%}, candidate tools per request {metrics['candidate_tools']['mean']:.1f}.
The alerts the incident answer names:

- **max_steps trigger rate** (fires above 2% of runs): a loop shape is back, or the limit is below what
  the task family needs. Here {metrics['max_steps_rate']:.1%}. On the catalogue it would read
  {tested['max_steps_rate']:.0%}, which says what the test set holds, not how the product behaves.
- **P99 steps** (above 12): runs that never conclude burn steps up to the fuse. Here {metrics['p99_steps']},
  with a {worst['steps']}-step run in the fleet. A P99 is a fleet alarm: over {metrics['runs']} runs the
  nearest-rank P99 is the run at rank {rank}, so it moves only when more than {metrics['runs'] - rank} runs
  are slow. One runaway is below its resolution, by design.
- **P99 cost per user request** (above $0.10): a user request is the whole run, every model call in it.
  Here ${metrics['p99_cost_per_user_request']:.4f}. Per model call it would read
  ${metrics['p99_cost_per_model_call']:.4f}: that figure counts the runaway's {worst['steps']} calls as
  {worst['steps']} samples, and would never see a request made of many cheap calls.
- **costliest user request** (above $1.00): the one runaway, ${metrics['max_cost_per_user_request']:.2f}
  (`{worst['scenario']}`). A single run is caught per run: its budget stops it (lesson 2), this rule pages on it.

`loopkit report` prints the same table from trace files (`loopkit demo --traces DIR`), or from a seeded
fleet (`loopkit report --fleet fleet-troubleshoot --runs 100`).
"""))

# %% [markdown]
# ## 6. What goes wrong: the 40-step incident, from its trace
#
# The interview card's pressure question: a troubleshooting request ran 40-odd steps, cost real money,
# and answered nothing. `incident-40-step` is that run. Layer by layer:

# %%
incident = find("incident-40-step")
bad, bad_trace = traced(incident)
found = classify(bad_trace)
print(timeline(bad_trace).splitlines()[0])
print("\n".join(timeline(bad_trace).splitlines()[1:9]))
print("...")
print("\n".join(timeline(bad_trace).splitlines()[-3:]))

# %%
share = found.tokens_after / bad.usage.total_tokens
display(Markdown(f"""
- **Stop reason**: {bad.stop_reason.value}, after {bad.model_calls} model calls, ${bad.cost_usd:.2f},
  {bad.usage.total_tokens:,} tokens.
- **Shape**: {found.shape} at step {found.detected_at}; also seen: {', '.join(f'{s} (step {n})' for s, n in found.found.items() if s != found.shape)}.
  {share:.1%} of the tokens came after step {found.detected_at}.
- **Text**: only now, the calls around step {found.detected_at}.
"""))

# %% [markdown]
# The response, minute by minute: contain first, understand later.
#
# 1. **Hard limits first**: a token, time and cost budget on the intent, checked before each request,
#    and the guard. Measured below: the guarded loop on the same request.
# 2. **Downgrade the intent** to a fixed pipeline or to a human until the cause is known: the
#    troubleshoot intent's checklist is short, a pipeline runs it in a fixed number of calls.
# 3. **Per-user rate limits**: one stuck request retried by an impatient user multiplies the bill.
# 4. **Add the case to the regression set**: its trace becomes a case the fix must pass.
# 5. **Decide workflow vs agent, with data**: the fleet's step distribution for the intent, against
#    the pipeline's fixed length.

# %%
fixed, fixed_trace = traced(incident, "guarded")
incident_case = parse_scenario(regression_case(bad_trace), "incident-case.yaml")
verdicts = {loop: all(c.ok for c in evaluate(incident_case, run_loop(loop, Episode.from_scenario(incident_case))))
            for loop in ("react", "guarded")}
pipeline = len([i for i in incident.checklist if i.tool]) + 1  # one call per checklist tool, then the answer
seeded = [r for r in rows if r["scenario"] == "fleet-troubleshoot" and r["seed"] is not None]
done = [r["steps"] for r in seeded if r["completed"]]
display(Markdown(f"""
1. Hard limits: the guarded loop stops on **{fixed.stop_reason.value}** after {fixed.model_calls} model calls
   and ${fixed.cost_usd:.4f}, against {bad.model_calls} calls and ${bad.cost_usd:.2f}.
2. A fixed pipeline for the intent: {pipeline} requests (its checklist's tool calls, then the answer).
3. Rate limits: five retries of the stuck request would have cost ${5 * bad.cost_usd:.2f}; a per-user cap
   on requests (and on spend) per hour bounds it whatever the loop does.
4. The regression case: the naive loop {'passes' if verdicts['react'] else 'fails'} it, the guarded loop
   {'passes' if verdicts['guarded'] else 'fails'} it.
5. Workflow or agent: of {len(seeded)} seeded troubleshoot runs, {len(done)} completed, in
   {min(done)} to {max(done)} steps (median {sorted(done)[len(done) // 2]}). An agent earns its place where
   the runs vary; if nearly all take the same path, the pipeline is cheaper and cannot loop.
"""))

# %% [markdown]
# ## 7. What to log, and what never to log
#
# Log what explains a run: per step the size, cost, candidate tool set, the calls with their
# fingerprints, what came back (status, error type, length), every guard and budget decision, and the
# stop reason. Replay needs the arguments, results and the model's text, so the trace keeps them,
# **redacted**: credentials are masked in place, character for character, so a redacted trace still
# replays with the same token counts.

# %%
leaky = 'connect failed: postgres://orders:hunter2@db.internal:5432/orders (api_key=sk-live-4f9a2b7c1d)'
print(redact_text(leaky))
print(len(redact_text(leaky)) == len(leaky))

# %% [markdown]
# Never log secrets (keys, passwords, tokens), and not the user's prompt unless you must: **content
# capture** is off by default. Without it the trace holds only the prompts' lengths; a replay stands in
# text of the same length.

# %%
_, plain = traced(trend)
_, captured = traced(trend, capture=True)
print({k: plain.records[0].get(k) for k in ("capture_content", "prompt_chars", "user")})
print({k: captured.records[0].get(k) for k in ("capture_content", "user")})

# %% [markdown]
# **The same run as OpenTelemetry spans.** A trace backend (Jaeger, Tempo, Langfuse, Datadog...) reads
# spans, not the kit's JSONL. The GenAI semantic conventions name them: one `invoke_agent` span per run
# (INTERNAL), and under it one `chat` span per model request (CLIENT) and one `execute_tool` span per
# tool call (INTERNAL). The tool spans are **siblings** of the chat spans, not their children: a tool runs
# after the model's response has ended, and the agent, not the request, runs it. Tokens go on the chat
# spans (`gen_ai.usage.*`), the stop reason on the run's span; content only with capture switched on.
# reference/diagnosis/otel.py exports a trace through a tracer provider of its own (the `trace` extra,
# `pip install -e ".[trace]"`); here the guarded run of section 4 goes to a file of JSON lines, one span
# a line, and is read back as a backend would.

# %%
from importlib.util import find_spec

if find_spec("opentelemetry.sdk") is None:
    print('OpenTelemetry SDK not installed: pip install -e ".[trace]" and run this cell again')
else:
    from reference.diagnosis.otel import export, file_exporter, tracer_provider

    spans_file = Path(tempfile.mkdtemp(prefix="lesson6-spans-")) / "spans.jsonl"
    with open(spans_file, "w") as out:
        export(guarded_trace, tracer_provider(file_exporter(out)))
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    by_id = {s["context"]["span_id"]: s for s in spans}
    root = next(s for s in spans if s["parent_id"] is None)
    print(f"{len(spans)} spans in {spans_file.name}; the tree, in start order:")
    print(f"{root['name']:34} {root['kind'].split('.')[-1]:9} stop reason {root['attributes']['loopkit.stop_reason']}")
    for s in sorted((s for s in spans if s is not root), key=lambda s: s["start_time"]):
        a = s["attributes"]
        what = (f"tokens {a['gen_ai.usage.input_tokens']} in, {a['gen_ai.usage.output_tokens']} out"
                if a["gen_ai.operation.name"] == "chat" else f"call {a['gen_ai.tool.call.id']}")
        print(f"  {s['name']:32} {s['kind'].split('.')[-1]:9} {what}  (parent: {by_id[s['parent_id']]['name']})")
    chats = [s for s in spans if s["attributes"]["gen_ai.operation.name"] == "chat"]
    tools = [s for s in spans if s["attributes"]["gen_ai.operation.name"] == "execute_tool"]
    print("chat spans = model calls:", len(chats) == guarded.model_calls,
          "| execute_tool spans = tool calls:", len(tools) == guarded.tool_calls,
          "| tokens add up:", sum(s["attributes"]["gen_ai.usage.input_tokens"] + s["attributes"]["gen_ai.usage.output_tokens"]
                                  for s in chats) == guarded.usage.total_tokens,
          "| every span under the run:", all(s["parent_id"] == root["context"]["span_id"] for s in spans if s is not root))

# %% [markdown]
# ## 8. Logs the kit did not write: diagnose, a fleet report, a replay
#
# Everything so far read traces the kit wrote. The logs you will be handed are chat transcripts,
# OpenTelemetry spans, benchmark trajectories, and real traffic differs in ways that matter for loops:
# a user answers between tool calls, tools fail with plain-text errors, ids are missing or reused, and
# the worst loops (a write that fails the same way while the user keeps rephrasing) span several user
# turns. `loopkit diagnose` reads the formats people have (docs/diagnose.md), tells them apart by
# content, and lets the guarded loop's own guard walk each conversation in **shadow mode**: at each call,
# what would it have done?
#
# The kit writes two agents' logs itself: a customer-service agent with a simulated user, and a coding
# agent, each with a looping and a healthy run (reference/diagnosis/samples.py), in every format.

# %%
import os
import tempfile
from pathlib import Path

from reference.diagnosis import samples
from reference.diagnosis.logs import read_log, write
from reference.diagnosis.replay_log import replay_log
from reference.diagnosis.shadow import judge
from reference.cli import main as loopkit

here = os.getcwd()
os.chdir(tempfile.mkdtemp(prefix="lesson6-logs-"))  # the logs are written away from the repository
Path("logs").mkdir()
agents = {"support_loop": samples.support_loop(), "support_ok": samples.support_ok(),
          "coding_loop": samples.coding_loop(), "coding_ok": samples.coding_ok()}
with open("logs/support.chat.jsonl", "w") as f:  # Chat Completions, one conversation a line, with an id
    for name in ("support_loop", "support_ok"):
        f.write(json.dumps({"conversation_id": name, "messages": write.chat(agents[name])}) + "\n")
Path("logs/support.anthropic.json").write_text(json.dumps(write.anthropic(agents["support_loop"])))
Path("logs/coding.responses.jsonl").write_text("\n".join(
    json.dumps({"id": name, **write.responses(agents[name])}) for name in ("coding_loop", "coding_ok")) + "\n")
Path("logs/coding.otlp.json").write_text(json.dumps(write.otlp(agents["coding_loop"], "trace-1", "coding_loop")))
print(write.chat(agents["support_loop"])[5])  # a plain-text error, as Chat Completions logs it: no error flag

# %% [markdown]
# The fleet report: one row per conversation (how many calls, how many flagged, the message index of
# the first flag in the log's own list, the shape, what was spent from there on), then the fleet.

# %%
exit_code = loopkit(["diagnose", "logs"])

# %% [markdown]
# One conversation, call by call. `message` indexes the log's own list (system and user entries
# count), so it points at the line a person opens; `evidence` is where the same call was made before.

# %%
support = next(read_log("logs/support.chat.jsonl"))
judged = judge(support)
table([{k: c[k] for k in ("message", "tool", "verdict", "rule", "evidence")} for c in judged.calls])
users = [i for i, m in enumerate(write.chat(agents["support_loop"])) if m["role"] == "user"]
print("user turns at messages", users)
print(judged.notes[-1])

# %%
flags = {c.id or c.index: judge(c).first_flag for f in sorted(Path("logs").iterdir()) for c in read_log(f)}
healthy_flagged = [k for k in ("support_ok", "coding_ok") if flags.get(k) is not None]
display(Markdown(
    (f"The looping support conversation is first flagged at message {judged.first_flag}"
     + (f", after the user's turn at message {max(u for u in users if u < judged.first_flag)}: the user's "
        "words changed nothing the failing write depended on. " if judged.first_flag > users[1] else ". ")
     if judged.first_flag is not None else "The looping support conversation is not flagged. ")
    + (f"Healthy runs flagged: {', '.join(healthy_flagged)}. Each is a false stop to read: without tool "
       "definitions the guard had only the tool's name to decide whether a re-run after a change is a "
       "re-check, and the fleet's loop rate counts it as a loop. Read the flagged rows before you trust the rate."
       if healthy_flagged else "No healthy run was flagged.")))

# %% [markdown]
# A real incident becomes a regression case in one command: the recorded assistant turns are the
# model's script, the recorded results the tools' answers (per call), the user's first turn the
# scenario's request. The react loop plays back the same calls in the same order; the guarded loop shows
# what the guard would have changed.

# %%
case = parse_scenario(yaml.safe_load(replay_log(support)), "case.yaml")
played = run_loop("react", Episode.from_scenario(case))
guarded_run = run_loop("guarded", Episode.from_scenario(case))
recorded = [(c["tool"], c["arguments"]) for c in judged.calls]
replayed = [(c["name"], json.loads(c["arguments"])) for s in played.steps for c in s.tool_calls]
print("same calls in the same order:", replayed == recorded)
print("react:  ", played.stop_reason.value, played.tool_calls, "tool calls")
print("guarded:", guarded_run.stop_reason.value, guarded_run.tool_calls, "tool calls")
os.chdir(here)

# %% [markdown]
# ## 9. The reference solution, graded
#
# The reference solution on the catalogue (`load_exercise("ex06", "exercises")` loads yours):

# %%
solution = load_exercise("ex06")
mine = Counter(solution.shape(t) for t in fleet[: len(catalogue())])
print("shapes:", dict(mine))
print({k: v for k, v in solution.fleet(fleet).items() if k != "stop_reasons"})
print("case fails on react:", not all(c.ok for c in evaluate(
    parse_scenario(solution.regression_case(trace), "c.yaml"),
    run_loop("react", Episode.from_scenario(parse_scenario(solution.regression_case(trace), "c.yaml"))))))

# %% [markdown]
# ## 10. The interview
#
# The questions of lesson 6, from the kit's question bank (reference/interview/questions.yaml):

# %%
LANG = "en"  # the bank's language: "en" or "zh" (中文)
display(Markdown(render_markdown(load_bank(), LANG, lesson=6)))
