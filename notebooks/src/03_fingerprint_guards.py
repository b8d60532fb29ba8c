# ---
# # Lesson 3 source. Edit this file, then rebuild and re-run the notebook:
# #     python notebooks/build.py 03
# # Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# # in prose is computed by a cell (Markdown built from f-strings): never type a measured number.
# ---

# %% [markdown]
# # Lesson 3: fingerprint guards that intervene before they interrupt
#
# *About 25 minutes to read and run; the exercise's core takes about 80 more, its stretch about 90.*
# (Reading estimated from the text at 150 words a minute, the code at 30 lines a minute and the outputs
# skimmed; every cell runs in seconds. docs/workshop.md says how the exercise times were estimated.)
#
# A model that loops rarely repeats itself byte for byte. It reorders the keys, pads a code with a
# space, writes it in lower case, says "tomorrow" instead of the date, or switches from PEK to PKX.
# It goes back and forth between two tools, rephrases a search that keeps returning the same page,
# or keeps getting empty results. And in the kit's cooperative scenarios, a model that is *told* it is
# going round in circles stops and answers (those scripted models are written to; how often a real
# model does is a rate to measure on your own traces). Killing the run at the first sign of a loop
# throws that answer away.
#
# This lesson:
#
# 1. **breaks** the lesson-1 loop, and a guard that counts raw identical calls, on repeats in disguise;
# 2. **observes** the trace: what changed between the calls, and what did not;
# 3. **fixes** it: normalised fingerprints (with a real airport canonicaliser), result fingerprints,
#    detectors for repeats, A-B-A-B, the same result and no progress, and a guard that intervenes first
#    and interrupts only if the model persists;
# 4. **tests** it on the scenario catalogue, against the naive loop, with the numbers measured here.
#
# Offline and deterministic: a scripted model, fake tools, a simulated clock.

# %% [markdown]
# ## Setup

# %%
from __future__ import annotations

import datetime as dt
import json

from kit import load_exercise  # notebooks/kit.py: puts the repository root on sys.path; loads solutions/ and exercises/

from IPython.display import Markdown, display

from reference import AssistantMessage, Episode, StopReason, ToolMessage, find
from reference.parts.guards import THRESHOLDS, LoopGuard, fingerprint, result_fingerprint, show
from reference.core import airports
from reference.parts.guards import detectors
from reference.core.dates import read_date
from reference.parts.guards.arguments import subject_of
from reference.parts.guards.metadata import without_metadata
from reference.parts.guards.results import leaf_values
from reference.parts.guards.effects import ToolInfo
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import RUN, Parts, Stop
from reference.loops.react import react_loop
from reference.cli.table import print_table as table
from reference.runs.runner import completed, evaluate



def naive(name: str):
    """The lesson-1 loop on a scenario, with the scenario's step limit."""
    episode = Episode.from_scenario(find(name))
    return react_loop(episode, max_steps=episode.limits.max_steps)


def guarded(name: str, make_guard=LoopGuard.for_episode):
    """The guarded loop with a guard and nothing else (no budget, no degraded answer yet)."""
    episode = Episode.from_scenario(find(name))
    guard = make_guard(episode)
    result = guarded_loop(episode, episode.limits.max_steps, Parts(guard=guard))
    return result, guard

# %% [markdown]
# ## 1. Break it: repeats in disguise
#
# Two scenarios from the catalogue. In `repeat-noisy` the model searches flights from PEK to SHA
# for tomorrow, then searches again, and again, never with the same bytes: the keys move, a code is
# padded or lower-cased, the date is "tomorrow" or 2026-12-01 (the run's clock says today is
# 2026-11-30). In `airport-drift` it asks for Beijing to Shanghai as PEK, then PKX, then BJS, then
# PVG for Shanghai. Both models answer the moment they are told they are repeating themselves; the
# lesson-1 loop never tells them.

# %%
BREAK = ["repeat-noisy", "airport-drift"]
for name in BREAK:
    r = naive(name)
    print(f"{name:<14} stop={r.stop_reason.value:<10} model calls={r.model_calls}  tool calls={r.tool_calls}  "
          f"tokens={r.usage.total_tokens}")

# %% [markdown]
# The step limit is the only exit, so the user gets no answer at all. The obvious fix is the one most
# people reach for first: count identical calls, and stop when one comes back. Here it is, as a
# guard for the guarded loop (reference/loops/guarded.py), with the simplest key there is: the tool
# name, the raw argument text and the raw result. Frameworks ship checks in the same spirit. CrewAI's,
# for instance, compares a tool call with the *last* tool call used (the exact name and arguments) and,
# rather than stopping, answers the agent with a fixed "repeated usage" message; the details vary by
# version.

# %%
class RawKeyGuard:
    """Stops the run when the same raw (tool, arguments, result) key has been seen `limit` times."""

    def __init__(self, limit: int = 2):
        self.limit, self.counts, self.pending = limit, {}, None

    def before_call(self, episode, call, messages):
        return RUN

    def after_result(self, episode, call, result):
        key = (call.name, call.arguments, result.content)
        self.counts[key] = self.counts.get(key, 0) + 1
        if self.counts[key] >= self.limit:
            self.pending = Stop(StopReason.REPEATED_CALL, f"{call.name} called {self.counts[key]} times")
        return result

    def after_step(self, episode, messages):
        return self.pending


raw_runs = {}
for name in ["repeat-exact-cooperative", *BREAK]:
    raw_runs[name], _ = guarded(name, lambda episode: RawKeyGuard())
    r = raw_runs[name]
    print(f"{name:<26} stop={r.stop_reason.value:<14} model calls={r.model_calls}  answered={completed(find(name), r)}")

# %%
exact, noisy, drift = raw_runs.values()
display(Markdown(f"""
It catches the exact repeat after {exact.model_calls} model calls, and kills a run that one sentence would
have saved: the model in `repeat-exact-cooperative` answers as soon as it is told. The disguised repeats it
sees only when the model happens to send the very same bytes again (here after {noisy.model_calls} and
{drift.model_calls} calls, when the model's cycle of disguises comes round), and then it kills those runs
too. None of the three users gets an answer.
"""))

# %% [markdown]
# ## 2. Observe: what changed between the calls, and what did not
#
# The trace of the naive run of `repeat-noisy`: the argument text the model sent, `json.dumps` of
# the parsed arguments (sorted keys, the usual "normalisation"), and a fingerprint of the result.

# %%
r = naive("repeat-noisy")
calls = [c for m in r.messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
results = {m.call_id: m for m in r.messages if isinstance(m, ToolMessage)}
for step, call in enumerate(calls[:4], start=1):
    args = json.loads(call.arguments)
    print(f"step {step}: raw {call.arguments}")
    print(f"        json.dumps(sort_keys) {json.dumps(args, sort_keys=True)}")
    print(f"        result {result_fingerprint(results[call.id].content)}")

# %%
raw = {c.arguments for c in calls}
dumped = {json.dumps(json.loads(c.arguments), sort_keys=True) for c in calls}
same = {result_fingerprint(results[c.id].content) for c in calls}
display(Markdown(f"""
Over the {len(calls)} calls there are **{len(raw)}** different argument texts and still
**{len(dumped)}** different `json.dumps(..., sort_keys=True)` strings (sorting the keys fixes only the
key order), but **{len(same)}** result: the tool saw one question the whole time. Two signals are in
this trace: the actions are the same once normalised, and the results are the same whatever the
arguments.
"""))

# %% [markdown]
# ## 3. Exercise: a guard that intervenes before it interrupts
#
# Sections 1 and 2 showed repeats in disguise that a count of identical calls never sees. Write the
# guard that does, in two parts, each in a file of its own that states the task and what you are given.
#
# - **The core**, `exercises/ex03_fingerprint_guard.py` (about 80 minutes): fingerprints that see
#   through the disguise, detectors for repeats anywhere in the run and for A-B-A-B, a repeat judged by
#   its answer (it runs once more unless running it again would act again), and a guard that answers the
#   first lapse with a warning the model can act on before it stops the run.
# - **The stretch**, `exercises/ex03b_guard_stretch.py` (about 90 minutes, after the core passes): what
#   results tell (the same result for a rephrased question, steps that bring nothing new), polling, and
#   turns of parallel calls. It imports the core's answers, so it does not depend on yours.
#
# (The times are estimates from the size of each solution, docs/workshop.md says how.) Check each from
# the repository root:
#
# ```
# loopkit check ex03        # runs tests/test_ex03_fingerprint_guard.py against your file
# loopkit check --watch ex03
# loopkit hint ex03         # hints escalate: loopkit hint ex03 2, 3, ...
# loopkit check ex03b       # the stretch: tests/test_ex03b_guard_stretch.py
# ```
#
# The wrong answers the tests are built to catch: in the core, a fingerprint that is `json.dumps` of the
# raw arguments, one that case-folds every string, a guard that stops at the first detection, one that
# fingerprints the tool alone, a repeat check that looks only at the previous call (A-B-A-B walks past it),
# one that lets every repeat run again (a write then acts twice), one that lets a repeat run but hands
# its unchanged answer to the model as it is, one that answers a read from memory because it is annotated
# read-only, one that answers a failed call from memory before the blip passed, and one that runs a
# failed call again and again; in the
# stretch, a guard that flags polling, counts an empty result as progress, calls four SKUs with one answer
# a rephrase, counts every call of a turn as a strike, or takes a fresh timestamp for news. Write it
# before you read on: sections 4 to 7 are the answer. The first hint:

# %%
from reference.cli import main as loopkit

exit_code = loopkit(["hint", "ex03", "1"])  # what `loopkit hint ex03 1` prints in a shell

# %% [markdown]
# ## 4. Fix it, part 1: a normalised action fingerprint
#
# The fingerprint is the tool name plus the **canonical arguments**: keys sorted, strings NFKC-
# normalised (full-width "ＰＥＫ" is "PEK"), trimmed and with their inner whitespace collapsed (a text of
# several lines keeps its layout: indentation is content in code, in YAML, in the text an edit must match), and
# then, property by property, what the tool's JSON schema says about the value:
#
# | the property says                                 | the fingerprint                                     |
# |---------------------------------------------------|-----------------------------------------------------|
# | `"format": "iata"` (the kit's own convention)     | the code's IATA metropolitan area (PEK, PKX -> BJS) |
# | description says "case-insensitive", not negated  | case-folded (nothing else is)                       |
# | `"format": "date"`, or description has YYYY-MM-DD | any unambiguous spelling read as YYYY-MM-DD on the run's clock |
# | `"type": "integer"` or `"number"`                 | "2", 2.0 and 2 are one number                       |
# | `"default": ...`                                  | an absent argument counts as its default            |
#
# `format: iata` is not a JSON Schema standard: it is the kit's own marker. A plain JSON Schema validator
# ignores a format it does not know, and so do the providers in their default (non-strict) tool mode.
# Strict or structured-output modes do not: they compile the schema into a grammar and support a listed
# set of `format` values only (OpenAI's Structured Outputs: date-time, time, date, duration, email,
# hostname, ipv4, ipv6, uuid; Anthropic's strict tool use adds uri), and a schema outside their subset
# is refused. With `strict: true`, move such a marker into the description. Each rule applies only where the schema says
# so. Case-folding only where the schema allows it matters: an order id `A1234` and `a1234` may be two
# different orders, and a guard that merges them blocks a legitimate call. The case rule, exactly: a
# string is case-folded when its description, read in any case, contains "case-insensitive" and does not
# contain "not case-insensitive" ("Ticket id (not case-insensitive)" keeps its case, as does a
# description that says nothing of case). The tool of
# `repeat-noisy`:

# %%
tool = find("repeat-noisy").tools[0]
print(f"{tool.name}: {tool.description}")
print(json.dumps(tool.parameters["properties"], indent=1))
today = Episode.from_scenario(find("repeat-noisy")).clock.today()
print("the run's clock: today is", today)
for call in calls[:4]:
    print(f"{call.arguments:<72} -> {show(fingerprint(tool.name, json.loads(call.arguments), tool.parameters, today))}")

# %% [markdown]
# ### The airport canonicaliser, from real data
#
# IATA groups the airports of a city into a metropolitan area with its own code: BJS is all of
# Beijing (Capital, PEK, and Daxing, PKX); SHA is Shanghai, and is also the code of Hongqiao airport
# (Pudong is PVG). IATA's own list ("Multi Airport Cities", for fares) is narrower than what a flight
# search uses: since October 2022 NYC is only JFK and LGA for pricing, yet a search for NYC still
# returns Newark. So the areas come from `reference/core/metro_codes.py`: IATA's list plus a
# small supplement, each entry with its source (EWR in NYC, BWI in WAS...); `airportsdata` only names
# the airports. No figure below depends on the installed airportsdata release:

# %%
t = airports.tables()
print("the Beijing metropolitan area BJS =", sorted(t.macs["BJS"]["airports"]),
      "; Shanghai SHA =", sorted(t.macs["SHA"]["airports"]), "; New York NYC =", sorted(t.macs["NYC"]["airports"]))
for code in ["PEK", "PKX", "BJS", "SHA", "PVG", "pvg ", "EWR", "CAN", "BJX"]:
    metro = airports.metro(code)
    print(f"{code!r:>7} {airports.airport_name(code):<42} -> {metro}  {airports.describe(metro)}")

# %% [markdown]
# Merging PEK and PKX into BJS is right *for this tool*: its description says it takes airports or
# metropolitan areas, and it answers per area (`"area": "BJS-SHA"` in every result of `airport-drift`,
# the same flights whichever Beijing code was sent). For a tool that searches by airport, PEK and PKX
# are two different questions, and a canonicaliser must not merge them; such a tool would need another
# marker than `format: iata`, one that only checks and trims the code.
#
# The last line of the table above is why a canonicaliser must never guess. BJX is a real code, but
# for Del Bajio airport (Silao, near Leon, Mexico); a widely shared write-up of an agent stuck on
# airport codes lists it among Beijing's airports. A code that exists but does not fit the user's
# request, a code that does not exist, or a city name where a code belongs are all turned into errors
# the model can act on, with what to use instead:

# %%
request = find("airport-unknown-code").user
print("request:", request)
print(airports.request_problem("BJX", request, other_codes=["SHA"])[0])
for value in ["Beijing", "QQQ"]:
    try:
        airports.metro(value)
    except airports.AirportCodeError as error:
        print(error.message)
try:
    airports.metro("Portland")
except airports.AirportCodeError as error:
    # How many Portlands there are depends on the airportsdata release, so only the two everyone
    # means are named here; the error itself lists every one and says "ask the user".
    print(f"'Portland' is a place name with {'several airports' if len(error.suggestions) > 1 else 'one airport'}; "
          f"PDX (Oregon) and PWM (Maine) among them: {'PDX' in error.suggestions and 'PWM' in error.suggestions}; "
          f"the error asks the user: {'ask the user' in error.message}")

# %% [markdown]
# ## 5. Fix it, part 2: result fingerprints, and what counts as progress
#
# The same normalisation applies to a tool's result: its fingerprint is a short hash of the canonical
# data, so two results that say the same thing match whatever their key order or spacing. Its
# **values** (every leaf: ids, names, numbers, statuses) tell whether a step brought anything new. An
# empty result brings nothing: `{"results": []}` has no values at all. And **metadata is not news**:
# a stuck job answered with a fresh `checked_at` and a new `request_id` is still stuck. The rule
# (`reference/parts/guards/metadata.py`): request and trace ids and etags whatever their value; keys
# that name a moment (`timestamp`, `*_at`...) when the value has the shape of one; and any key the tool
# declares in its scenario definition (`metadata: [served_by]`). A moment is only *presumed* to be the
# response's clock: once it moves together with the rest of an answer to the same call (a workflow run's
# `updated_at` beside its status), it is the resource's own state, and its advancing is news. The false
# positive this prevents: a run polled between waits whose status sits at `in_progress` while its
# `updated_at` advances, stopped as "no progress".

# %%
for content in ['{"ok": true, "data": {"results": []}}',
                '{"ok": true, "data": {"job_id": "exp-42", "status": "running", "progress": 0.4}}',
                '{"data": {"progress": 0.4, "status": "running", "job_id": "exp-42"}, "ok": true}',
                '{"ok": true, "data": {"job_id": "exp-42", "status": "running", "progress": 0.4, '
                '"checked_at": "2026-11-30T09:00:10Z", "request_id": "r-7"}}']:
    data = json.loads(content)["data"]
    print(f"{result_fingerprint(content)}  values={sorted(leaf_values(without_metadata(data)))}")

# %% [markdown]
# ## 6. Fix it, part 3: the detectors
#
# Five small functions in `reference/parts/guards/detectors.py`, fed fingerprints and per-step counts of new
# values (docs/glossary.md maps each pattern to the loop shape lesson 6 reads in a trace):
#
# - **repeated call**: the same action again, anywhere in the run, not only right after itself;
# - **alternation**: A-B-A-B, two actions taking turns (two services each waiting for the other);
# - **same result**: different calls of one tool returning the same non-empty result;
# - **no progress**: N steps in a row whose successful results brought no new value (empty results
#   count as nothing new; a step in which every call failed counts neither way: errors are lesson 5's);
# - **echo**: the model's own text barely changing between steps (supporting evidence only).
#
# Legitimate repetition passes without special cases: paging asks for a new page (a new fingerprint),
# polling repeats the action but gets a new result each time (progress). Which earlier calls still count
# is decided by the detectors that use these functions (state epochs, below).

# %%
print("repeat anywhere:     ", detectors.repeated_call(["A", "B"], "A"))
print("consecutive only:    ", "A" == ["A", "B"][-1], "(what a last-call check sees)")
print("alternation A-B-A-B: ", detectors.alternation(["A", "B", "A"], "B"))
print("same result:         ", detectors.same_result({"r1": ["q1", "q2"]}, "r1", threshold=2))
print("no progress (new values per step 3, 0, 0):", detectors.no_progress([3, 0, 0], steps=2), "steps")
print("echo:                ", detectors.echo(["Let me double-check the status.", "Let me double-check the status."]))

# %% [markdown]
# ## 7. Fix it, part 4: intervene first, then interrupt
#
# `LoopGuard` (reference/parts/guards/guard.py) plugs into the guarded loop's three guard hooks:
#
# - `before_call`: an alternation is not executed, and neither is a repeat that would act again (a
#   write that took) or whose answer is known: it already answered the same twice, failed the same way
#   twice, or failed saying of itself that it will not pass (its own `retryable: false`). The call is
#   answered by a feedback message as its tool result, so the history stays protocol-valid (every call
#   id gets its answer). Any other repeat runs once more, a read whatever its annotations say and a
#   call that failed on a blip: the guard compares call AND answer, as the field's own detectors do
#   (OpenHands' stuck detector, openclaw's poll check). The argument checks (an unknown airport code)
#   come after the repeat check, because a call the guard answered itself never reached its tool: its
#   repeat is answered again before it runs, and that is a detection, counted like any other. Checked
#   first, a bad code would get its error afresh on every attempt, nothing would be counted, and a model
#   that keeps sending it would loop until the step limit;
# - `after_result`: the same answer again, the same result for a rephrased question, or a step with
#   nothing new, can only be seen after the call ran. A repeat that answered what it answered before is
#   replaced by the feedback (that answer is already in the conversation: the model never reads one
#   answer twice); for the other patterns the data stays inside the feedback, under `result`;
# - escalation: the first detections (the tier's `interventions`, counted per run, whatever the
#   pattern) are warnings, verdict "intervene"; the next one is verdict "stop", which carries the
#   feedback too (it answers the call, as a warning does) and a `Stop` with the pattern's stop reason.
#   A stop reached in `before_call` ends the run there; one reached in `after_result` keeps the real
#   result and ends the run when the step is over (`after_step` returns it).
#
# Here is the message the model receives on its second search in `repeat-noisy`:

# %%
r, guard = guarded("repeat-noisy")
message = next(m for m in r.messages if isinstance(m, ToolMessage) and '"loop_detected"' in m.content)
print(json.dumps(json.loads(message.content), indent=1, ensure_ascii=False))

# %% [markdown]
# Evidence (what repeated, how many times, and in which disguises), options (answer with what you
# have, another tool, an argument that really changes the question) and an instruction, with the
# consequence. The scripted model is cooperative: it answers on the next turn. A stubborn model in
# the same situation (`repeat-noisy-stubborn`) gets the same message, ignores it, and is stopped on
# the next detection, with the search already done:

# %%
for name in ["repeat-noisy", "repeat-noisy-stubborn", "airport-unknown-code", "airport-unknown-code-stubborn"]:
    r, guard = guarded(name)
    print(f"{name:<30} stop={r.stop_reason.value:<14} model calls={r.model_calls}")
    for event in guard.events:
        print(f"    step {event['step']}: {event['pattern']:<16} {event['did']}")

# %% [markdown]
# The same runs as a picture, with the lesson-1 loop on the stubborn model for contrast: the guard
# lets the tools run, intervenes once, and only then stops; the naive loop runs until its fuse.

# %%
import logging

logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # no font-cache notice on a fresh machine
import matplotlib.pyplot as plt

KINDS = {"tools ran": ("o", "tab:blue"), "guard intervened": ("^", "tab:orange"),
         "guard stopped the run": ("X", "tab:red"), "step limit, no answer": ("s", "black"),
         "final answer": ("*", "tab:green")}


def timeline(result, events) -> list[str]:
    """What each model request led to, from the run record and the guard's events."""
    guard_did = {e["step"]: "guard stopped the run" if e["did"] == "stopped the run" else "guard intervened"
                 for e in events}
    if result.stop_reason is StopReason.MAX_STEPS:
        guard_did[len(result.steps)] = "step limit, no answer"
    return [guard_did.get(n, "tools ran" if step.tool_calls else "final answer")
            for n, step in enumerate(result.steps, 1)]


runs = [("naive loop: repeat-noisy-stubborn", timeline(naive("repeat-noisy-stubborn"), []))]
for name in ["repeat-noisy", "repeat-noisy-stubborn", "alternation-cooperative", "same-result-stubborn"]:
    r, guard = guarded(name)
    runs.append((f"guard: {name}", timeline(r, guard.events)))

fig, ax = plt.subplots(figsize=(8, 3.4), dpi=100)  # fixed size and dpi: the stored picture is reproducible
for row, (label, kinds) in enumerate(runs):
    ax.plot([1, len(kinds)], [row, row], color="lightgrey", zorder=1)
    for n, kind in enumerate(kinds, 1):
        marker, colour = KINDS[kind]
        ax.scatter(n, row, marker=marker, color=colour, s=110, zorder=3)
for kind, (marker, colour) in KINDS.items():
    ax.scatter([], [], marker=marker, color=colour, label=kind)
ax.set_yticks(range(len(runs)), [label for label, _ in runs])
ax.invert_yaxis()
ax.set_xticks(range(1, max(len(k) for _, k in runs) + 1))
ax.set_xlabel("model request")
ax.set_title("What each request led to: run, intervene, then stop")
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ### What is not a loop: a false stop is as bad as a missed one
#
# A guard tuned only on loops learns to stop things. Measured on scenarios written without it, an
# earlier version of this guard stopped legitimate work: a re-read after a write, the poll of a job the
# agent had just started, the re-read that an HTTP 412 asks for. It rested on lists of names and keywords
# that fit the catalogue, and every new kind of tool needed a new entry. The guard now rests on a few
# principles, each one sentence, each with the false positive it prevents
# (`reference/parts/guards/registry.py` lists the detectors; each file states its rule and holds a
# legitimate scenario that a test runs):
#
# - **State epochs: the same call is a repeat once it gives the same answer with nothing in between that
#   could have changed it; it is answered before it runs only when running it again would act twice, or
#   its answers already say what it will answer.** A second identical read runs, whatever its
#   annotations say (MCP calls them hints, not guarantees), and only the same answer again is the
#   repeat; the third is answered before it runs. *It prevents* stopping a log tailed with the same
#   command while training runs, a crawl's status annotated `openWorldHint: false` polled while it
#   moves, and a browser's `wait` before a re-check. A call
#   that succeeded and may change state opens a new epoch for every read; so does an error saying the
#   resource changed (409, 412, a new ETag); a new user message refreshes what reads knew. Whether a call
#   may change state comes from its MCP annotations (with the spec's defaults for a missing hint:
#   readOnlyHint false, openWorldHint true), else from the HTTP method it states, else, as a last resort,
#   from its name, unless the call sends SQL (a SELECT alone reads, an INSERT writes); a definition that says nothing of its effects (a shell, a browser) is judged by what the
#   call answered: an acknowledgement (a success flag, the id it created) marks a write, which is never sent
#   twice (one holding the id of a thing it made, whatever the tool's name says), and content marks a read, as does an answer giving only the state of the thing the call names
#   (no new id, no number: a refund's status, whatever language the tool is named in); an answer new only
#   by what the call itself created (a fresh id, its creation time) is the same acknowledgement, so the same
#   send twice is a duplicate. *It prevents*
#   flagging "read the document, change it, read it again to check".
#   A failed call changed nothing, and its failure may not recur (a database waking up, a fix the user
#   made outside): sent again it runs once more, and the same failure again is the repeat, whatever the
#   user said since; a failure that passes by itself (a refused connection, a timeout, HTTP 429 or 503)
#   may be sent again, three attempts in all; one that says of itself it will not pass (its own
#   `retryable: false`, a 404) is the repeat before it runs. *It still catches* a read that answers the
#   same twice, and the same failure twice. A call that names no target of its own (no arguments, or
#   only empty ones and fixed choices) can only act on what the tool carries: it runs again and is judged
#   by its answer. *It prevents* flagging a query retried while its database wakes, and an editor's
#   argument-less "scroll down".
# - **Progress is new information.** Results are compared without what the call itself put there (echoes
#   of its own query, offset or id) and without metadata (timestamps, request ids). An answer about a
#   new subject is news even if it says `true` again; a changed answer to the same call (polling) is news.
#   An answer that lists things of its own is compared across subjects: pages 2, 3 and 4 that list the same
#   items asked one question, whatever their page numbers say.
#   A failure's kind is what it says beyond the call's own words (its standard codes, its wording with the
#   call's words, every number and its metadata left out, as an answer's is): a new kind is news, the same
#   kind again is not.
#   *It prevents* flagging a batch of stock checks that all say "in stock", a poll whose status moves, and a
#   query debugged through a syntax error, a missing column and a missing table;
#   it *catches* searches whose only "new" value is their own echoed query, and guessing (404 after 404
#   on id after id, "no such column" after guessed column).
# - **Rephrasing is wording, not a new subject.** Calls of one tool that differ only in free wording (text
#   of two words or more) and get one answer are one question. *It prevents* flagging four SKUs that share
#   an answer: an id is a subject, a phrase is wording.
# - **A value the agent was given names a thing.** Two calls that differ by what the user wrote or an
#   earlier answer showed (ten addresses of a pasted manifest, keys built from the tenants the user
#   listed) ask about two things, however alike their answers; a phrase counts only whole, since any
#   rewording reuses the user's words. Calls that differ only by a wait that grows, answered by a bare
#   state ("not yet"), are a poll backing off. *It prevents* flagging a manifest with four unresolvable
#   addresses; it still *catches* a search reworded with the user's own words.
# - **Cycles.** A-B-A-B with nothing in between that could change either answer is one loop. *It
#   prevents* flagging two moving builds watched in turn.
# - **Rounds.** A round of calls (start, read, stop) again word for word, but for the ids its own answers
#   minted (a new PID each start), is one loop, writes and all. *It prevents* flagging a server started again
#   after its port was changed, or a round over each item a listing gave.
# - **One canonical form.** "Is this the same call?" has one answer in the kit
#   (`reference/core/canonical.py`): the guard, the executor, the trace and trace diagnosis ask it. *It
#   prevents* the guard and the trace disagreeing about what repeated. A file path is a path by its form
#   and has one spelling: `C:\W\src\A.ts`, `c:/w//src/a.ts` and, in a workspace `C:\W`, `.\src\A.ts`
#   are one file (Win32's rules); `/srv/A.txt` and `/srv/a.txt` are two (POSIX).
# - **Words that do not invite the behaviour.** The feedback never names what it warns against ("do not
#   call it again" plants "call it again"): evidence says what happened, the instruction what to do
#   instead, and both stay short, because every later request re-reads them.
# - **Dates in any spelling, one date.** "Dec 1, 2026", "tomorrow", "Tuesday" are one date on the run's
#   clock; 01/02/2026 reads differently day-first and month-first: never merged, and the model is asked.
# - **Per turn, not per call.** The calls of one assistant message were written before the model could
#   read any warning: a copy inside the turn is answered without running it, and the turn is one lapse.

# %%
today = dt.date(2026, 11, 30)
for spelling in ["2026-12-01", "Dec 1, 2026", "1 December 2026", "tomorrow", "Tuesday", "01/02/2026", "13/01/2026"]:
    reading = read_date(spelling, today)
    print(f"{spelling!r:>18} -> {reading.iso or 'ambiguous: ' + ' or '.join(reading.readings)}")
print("subject of check_stock(sku=KB-101):", subject_of({"sku": "KB-101"}),
      "| of search_docs(query=...):", subject_of({"query": "damaged item refund"}))
for tool in [ToolInfo("get_order", description="An order by id."),
             ToolInfo("get_build", annotations={"readOnlyHint": True}),
             ToolInfo("update_page", description="PUT /pages/{id} - change a page."),
             ToolInfo("charge_card", annotations={})]:
    print(f"{tool.name:<12} may change state: {tool.writes!s:<5} (from its {tool.source}); "
          f"its answer moves by itself: {tool.moves_by_itself}")

# %% [markdown]
# ### Thresholds per intent
#
# How much repetition is normal depends on the task. A lookup has one right call, so a second
# identical one is already waste; troubleshooting re-checks a metric after something changed, so one
# identical re-run is allowed there, and it waits a step longer before calling it no progress. The
# alternation detector does not wait for the repeat count, which is what makes it worth having
# (`alternation-cooperative` is a troubleshooting session):

# %%
for intent, th in THRESHOLDS.items():
    print(f"{intent:<13} allowed runs={th.allowed_runs}  same result after={th.same_result_actions} calls  "
          f"no progress after={th.no_progress_steps} steps  warnings before stopping={th.interventions}")
r, guard = guarded("alternation-cooperative")
print(f"\nalternation-cooperative: {r.stop_reason.value} in {r.model_calls} calls; events: "
      + "; ".join(f"step {e['step']} {e['pattern']}" for e in guard.events))

# %% [markdown]
# ## 8. Test: naive loop against the guard, on the lesson's scenarios
#
# Every scenario below runs twice: the lesson-1 loop, and the guarded loop with the loop guard and
# nothing else (no budget, no degraded answer: those are lessons 2 and 4). "guard ok" checks the
# scenario's `expect` block (stop reason, bounds, answer), and holds the completable ones to a bound on
# model calls relative to the oracle, the same rule the kit's guard tests use:

# %%
ORACLE_SLACK = 1.25  # a completable run may make at most this many times the oracle's model calls (as in the tests)
print(f"completable scenarios: at most {ORACLE_SLACK:g} x the oracle's model calls, "
      f"{ORACLE_SLACK - 1:.0%} more than a perfect run")

# %%
LESSON = ["repeat-exact", "repeat-exact-cooperative", "repeat-noisy", "repeat-noisy-stubborn", "airport-drift",
          "airport-drift-stubborn", "airport-unknown-code", "airport-unknown-code-stubborn", "alternation",
          "alternation-cooperative", "same-result", "same-result-stubborn", "empty-rephrase",
          "empty-rephrase-cooperative", "metric-trend", "polling-stuck", "incident-40-step", "paging-legit",
          "polling-legit", "new-arguments-legit", "happy-path", "airport-metro-newark", "nested-legs-legit",
          "nested-legs-drift", "date-weekdays-legit", "date-ambiguous", "identity-batch-legit",
          "turn-duplicate-cooperative", "polling-annotated-legit", "polling-metadata-stuck"]


def measure(name: str) -> dict:
    scenario = find(name)
    before = naive(name)
    after, _ = guarded(name)
    oracle = scenario.expect.oracle_model_calls
    return {"scenario": name, "completable": scenario.expect.completable, "oracle": oracle,
            "naive calls": before.model_calls, "naive stop": before.stop_reason.value,
            "naive ok": all(c.ok for c in evaluate(scenario, before)),
            "guard calls": after.model_calls, "guard stop": after.stop_reason.value,
            "guard ok": all(c.ok for c in evaluate(scenario, after))
            and (not oracle or after.model_calls <= ORACLE_SLACK * oracle),
            "naive tokens": before.usage.total_tokens, "guard tokens": after.usage.total_tokens,
            "naive done": completed(scenario, before), "guard done": completed(scenario, after)}


rows = [measure(name) for name in LESSON]
table(rows, ["scenario", "oracle", "naive calls", "naive stop", "naive ok", "guard calls", "guard stop", "guard ok"])

# %%
total = {k: sum(r[k] for r in rows) for k in ("naive calls", "guard calls", "naive tokens", "guard tokens",
                                              "naive ok", "guard ok", "naive done", "guard done", "completable")}
LEGIT = ["paging-legit", "polling-legit", "new-arguments-legit", "nested-legs-legit", "date-weekdays-legit",
         "identity-batch-legit", "polling-annotated-legit"]  # repetition that is part of the task
legit = [r for r in rows if r["scenario"] in LEGIT + ["happy-path"]]
display(Markdown(f"""
On these {len(rows)} scenarios the guard meets **{total['guard ok']} of {len(rows)}** `expect` blocks, the
naive loop {total['naive ok']}. It completes **{total['guard done']} of {total['completable']}** completable
scenarios (the naive loop {total['naive done']}), with **{total['guard calls']} model calls** in total against
{total['naive calls']} ({total['guard tokens']:,} tokens against {total['naive tokens']:,}). On the
{len(LEGIT)} legitimate-repetition scenarios and the happy path (which repeats nothing) both loops make the
same calls ({sum(r['guard calls'] for r in legit)} and {sum(r['naive calls'] for r in legit)}): the guard costs
nothing when there is no loop.
"""))

# %% [markdown]
# The 40-step incident from lesson 2, as the guard alone handles it:

# %%
r, guard = guarded("incident-40-step")
incident = next(row for row in rows if row["scenario"] == "incident-40-step")
checks = evaluate(find("incident-40-step"), r)
intent = find("incident-40-step").intent
th = THRESHOLDS[intent]
print(f"stop {r.stop_reason.value} after {r.model_calls} model calls; events: "
      + "; ".join(f"step {e['step']} {e['pattern']} ({e['did']})" for e in guard.events))
print("expect:", "; ".join(f"{'PASS' if c.ok else 'FAIL'} {c.detail}" for c in checks))
display(Markdown(f"""
The guard recognises the loop: the same metric query comes back, is answered with a warning at step
{guard.events[0]['step']} and, when the model carries on, the run stops on `{r.stop_reason.value}` after
{r.model_calls} model calls instead of {incident['naive calls']}. The {intent} thresholds allow
{th.allowed_runs - 1} identical re-run and {th.interventions} warning before that. Here the guard is the part
that has to stop it: the deployment allowed 50 steps and set no budget, and lesson 2's fitted tier never
overrides a limit someone set. The budget the operator chose in lesson 2 stops the same run earlier, on the
bill rather than on the loop; the two parts work together, and neither alone is the whole answer.
"""))

# %% [markdown]
# The stubborn runs end without an answer: the guard stops them for the right reason, early, but the
# user still gets nothing. Lesson 4 turns such a stop into a degraded result (what was found, what is
# missing, what to do next).
#
# ## 9. The reference solution, graded
#
# The reference solution, `solutions/ex03_fingerprint_guard.py`, loaded from its file and run by the
# grader the tests use, on a cooperative and a stubborn model in the same disguised loop (`load_exercise("ex03", "exercises")` loads yours):

# %%
from reference.sandbox.grading import run_candidate

solution = load_exercise("ex03")  # load_exercise("ex03", "exercises"): yours


def solution_loop(episode, max_steps):
    return guarded_loop(episode, max_steps, Parts(guard=solution.make_guard(episode)))


for name in ("repeat-noisy", "repeat-noisy-stubborn"):
    attempt = run_candidate(solution_loop, name)
    print(attempt.story())
    print(f"    answer: {attempt.result.answer!r}" if attempt.result.answer else f"    {attempt.result.detail}")

# %% [markdown]
# Its rule for a call asked again, in one sentence: *a repeat runs once more and is judged by its answer,
# unless running it again would act again or its answers already say what it will answer.* Four calls,
# each asked four times: a crawl's status that moves though its server annotates it `readOnlyHint: true,
# openWorldHint: false` (MCP annotations are hints), a call that failed on a 503 for a moment, the same
# 503 every time, and a ticket opener (`readOnlyHint: false`). The first two are never stopped; the
# same failure twice is the repeat; the ticket is opened once:

# %%
from reference import Scenario, parse_scenario


def asked_four_times(name: str, answers: list, **tool) -> Scenario:
    return parse_scenario({
        "name": name, "title": name, "user": "Has crawl c1 finished?", "limits": {"max_steps": 6},
        "tools": [{"name": "crawl", "description": "The state of a web crawl.", **tool,
                   "parameters": {"type": "object", "properties": {"crawl": {"type": "string"}}},
                   "rules": [{"results": answers}]}],
        "model": {"script": [{"call": {"tool": "crawl", "args": {"crawl": "c1"}}}] * 4 + [{"answer": "Done."}]},
        "expect": {"completable": True, "stop_reason": "completed"}}, source=f"lesson 3 ({name})")


pages = [{"data": {"crawl": "c1", "pages": f"{n} of 10 scraped"}} for n in (3, 6, 8, 10)]
closed_world_read = {"readOnlyHint": True, "openWorldHint": False}
for scenario in [asked_four_times("status-that-moves", pages, annotations=closed_world_read),
                 asked_four_times("a-blip", [{"fault": "server_error"}, *pages[1:]]),
                 asked_four_times("the-same-503", [{"fault": "server_error"}]),
                 asked_four_times("a-ticket", [{"data": {"ticket": "T-1", "opened": True}}],
                                  description="Open a ticket.", annotations={"readOnlyHint": False})]:
    attempt = run_candidate(solution_loop, scenario)
    ran = sum(1 for step in attempt.result.steps for t in step.tools if t.name == "crawl")
    print(f"{scenario.name:<18} ran {ran} of 4, stop {attempt.result.stop_reason.value}")

# %% [markdown]
# ## 10. The interview
#
# **Questions this lesson prepares for:**
#
# 1. *How do you detect a loop, beyond counting identical calls?*
#    A strong answer lists several signals: normalised action fingerprints (the same call in disguise);
#    result fingerprints (different arguments, the same answer); A-B-A-B alternation (two tools waiting
#    on each other, which a last-call check never sees); no progress (N steps without a new entity or
#    value, empty results counting as nothing); and, as supporting evidence, the model's own text
#    repeating. It compares call AND answer: a call asked again runs once more and is judged by what it
#    answers, unless running it again would act again (a write that took); a status read annotated
#    read-only still moves, and a 503 may pass, so neither is answered from memory (a 404 that says
#    `retryable: false` is), while the same answer twice, or the same failure twice, is the loop. It
#    also names what must *not* be flagged (paging, polling a job whose status changes, the same tool
#    with genuinely new arguments) and sets thresholds per intent, not one global N.
# 2. *Why normalise the fingerprint? Isn't hashing the arguments enough?*
#    A strong answer: the model's output is sampled text, so the same intent comes back with keys
#    reordered, spaces, another case, "tomorrow" for a date, another code for the same airport; a raw
#    hash sees a new call every time. Normalise by the tool's schema: sort keys, NFKC, collapse
#    whitespace, compare numbers as numbers, resolve relative dates on the run's clock, case-fold only
#    where the schema says the value is case-insensitive, and canonicalise domain values from real
#    data (IATA metropolitan areas), turning unknown or mismatched values into actionable errors rather
#    than silent guesses (BJX is in Mexico, not Beijing).
# 3. *Why intervene before interrupting?*
#    A strong answer: a model may loop because it cannot see that it is done or that a path is dead.
#    One structured message as the tool result (evidence, options, instruction) gives it the chance to
#    change course: the kit's cooperative models take it (they are scripted to; with a real model,
#    measure how often it does), while killing the run outright always fails the user. The
#    intervention keeps the protocol valid
#    (the blocked call still gets an answer by its id). But it is bounded: if the model persists, stop
#    with the pattern's stop reason, and hand over what was obtained (lesson 4).
#
# 4. *Your guard stopped a batch of lookups that all returned the same thing. Bug or feature?*
#    A strong answer: a bug, and as bad as a missed loop (the user gets no answer either way). Same
#    result counts as a rephrase only for the same subject (wording aside: four SKUs are four
#    questions); a poll whose answer changes is progress, and real tools carry no `volatile` flag, so
#    read the MCP annotations (with the spec's defaults), then the HTTP method, and treat a read after a
#    successful write as a new question (state epochs); echoes of the call's own arguments, timestamps
#    and request ids are not news; the calls of one turn are one lapse. And it measures the guard on
#    scenarios it was not tuned on, counting false stops next to missed loops.
#
# **Weak answers the interviewer hears:** "count calls and stop at N" (no normalisation, kills
# cooperative models, flags paging); "the model will notice it is repeating"; comparing each call only
# with the previous one; hashing `json.dumps(arguments)`; lower-casing everything; "map the code to the
# nearest airport" (a silent guess); "same result twice means a loop" (batch lookups); "a changed
# result is progress" (a fresh timestamp); "it is annotated read-only, so its answer cannot change" (a
# crawl's status moves); "it failed, so the same call fails again" (a 503 passes).
