# ---
# # Lesson 1 source. Edit this file, then rebuild and re-run the notebook:
# #     python notebooks/build.py 01
# # Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# # in prose is computed by a cell (Markdown built from f-strings): never type a measured number.
# ---

# %% [markdown]
# # Lesson 1: the ReAct loop, in 20 lines
#
# *About 25 minutes to read and run; the exercise takes about 15 more.* (Estimated from the
# text at 150 words a minute, the code at 30 lines a minute and the outputs skimmed; every cell runs in
# seconds. docs/workshop.md has the agendas.)
#
# An agent is a loop around a model. The model **reasons** about what to do next, the code **acts**
# by running the tool the model chose, and the model **observes** the result on its next turn. The
# loop goes round until the model answers, or until something makes the code stop it.
#
# This lesson builds that loop from the kit's parts, runs it on every scripted failure scenario, and
# shows the two mistakes that interviewers listen for: a history that loses the assistant's
# tool-call message, and a loop whose only exit besides the answer is a step limit.
#
# Everything here runs offline: a scripted model, fake tools and a simulated clock. Re-running the
# notebook gives the same output, to the character, as long as what it reads is the same: the scenario
# files and the kit's own data (its token estimator, prices, airport tables) at this version, and the
# installed packages whose behaviour it shows (pydantic's and jsonschema's messages, the SDKs' request
# shapes). Nothing depends on the wall clock, the network or an unseeded random draw; a new version of
# any of those inputs can change a figure.

# %% [markdown]
# ## Setup
#
# The kit's code lives in `reference/`, at the repository root. `notebooks/kit.py`, next to this
# notebook, puts that root on `sys.path` and loads the exercises and their solutions from their files.

# %%
from __future__ import annotations

import json
import os
import re

from kit import load_exercise  # notebooks/kit.py: puts the repository root on sys.path; loads solutions/ and exercises/

from IPython.display import Markdown, display

from reference import Episode, ProtocolError, StopReason, ToolCall, catalogue, find, to_wire

# %% [markdown]
# ### Which model?
#
# The lesson runs on the scenario's **scripted model** unless you set `LOOPKIT_PROVIDER` before
# starting Jupyter. With `openai` or `anthropic` (and the provider's API key; `LOOPKIT_MODEL` picks
# the model, else the adapter's default), the step-by-step walk-through below talks to a real model
# through the adapters in `reference.providers.adapters`, while the tools stay the scenario's fake tools. The stored
# notebook never runs that branch, and `pytest --nbval` only passes with the scripted model: a real
# model writes different text.

# %%
PROVIDER = os.environ.get("LOOPKIT_PROVIDER", "scripted")


def live_model():
    """The model for the walk-through; None means the scenario's own scripted model."""
    if PROVIDER == "scripted":
        return None
    chosen = {"model": os.environ["LOOPKIT_MODEL"]} if os.environ.get("LOOPKIT_MODEL") else {}
    if PROVIDER == "openai":
        import openai
        from reference.providers.adapters import OpenAIChatModel
        return OpenAIChatModel(openai.OpenAI(), **chosen)  # reads OPENAI_API_KEY
    if PROVIDER == "anthropic":
        import anthropic
        from reference.providers.adapters import AnthropicModel
        return AnthropicModel(anthropic.Anthropic(), **chosen)  # reads ANTHROPIC_API_KEY
    raise ValueError(f"LOOPKIT_PROVIDER must be scripted, openai or anthropic; got {PROVIDER!r}")


print(f"provider: {PROVIDER}")

# %% [markdown]
# ## 1. The concept: reason, act, observe
#
# ```
#            one step = one model request
#   messages ───► model.complete(messages, tools) ───► Turn(text, tool_calls)
#      ▲                                                     │
#      │                        no tool calls? ─── yes ───►  final answer: stop
#      │                                                     │ no
#      └──── tool results ◄──── tools.execute(call) ◄────────┘
#                               (runs in YOUR code)
# ```
#
# Three facts carry the whole lesson:
#
# - **One step is one model request**, not one tool execution. A turn may ask for several tools at
#   once; they all belong to the same step. Cost and latency are counted per request.
# - **Tools run in code.** The model only *proposes* a call (a name and JSON arguments); your loop
#   decides whether and how to run it, and what to send back.
# - **The history is the protocol.** The assistant message that carries the tool calls goes into the
#   history first, then one result per call, each pointing at its call's id.

# %% [markdown]
# ## 2. Before native function calling: Thought / Action / Observation as text
#
# Before APIs had a field for tool calls, the model *wrote* its decision as text and the loop parsed
# it. The ReAct paper's prompts used numbered lines with a bracketed action, such as
# `Action 1: Search[Colorado orogeny]`, and `Finish[...]` to end. LangChain's ReAct agents then
# settled on a tool name on an `Action:` line and its input on an `Action Input:` line, which is the
# convention used here, with JSON as the input:
#
# ```
# Thought: I need tomorrow's weather.
# Action: get_weather
# Action Input: {"city": "Shanghai", "date": "2026-12-01"}
# ```
#
# The code ran the tool and appended `Observation: ...` to the prompt. Frameworks shipped
# regular-expression parsers for this. Here is a toy one, with the format's two exits: `Final Answer:`
# or an `Action` / `Action Input` pair.

# %%
ACTION = re.compile(r"Action\s*:\s*(?P<tool>.*?)\s*\n\s*Action\s*Input\s*:\s*(?P<input>.*)", re.DOTALL)
TEXT_TOOLS = ("get_weather", "search_flights")


class ParseError(ValueError):
    pass


def parse_react(text: str) -> str | tuple[str, dict]:
    """A final answer (str), or (tool, arguments) parsed from the text protocol."""
    if "Final Answer:" in text:
        return text.split("Final Answer:")[-1].strip()
    match = ACTION.search(text)
    if match is None:
        raise ParseError("no 'Action:' line followed by an 'Action Input:' line")
    try:
        arguments = json.loads(match["input"].strip())
    except json.JSONDecodeError as exc:
        raise ParseError(f"Action Input is not JSON ({exc})") from None
    return match["tool"].strip(), arguments


# %% [markdown]
# Now feed it what models really write. None of these strings is exotic: a comment after the JSON,
# the word "Action:" inside the reasoning, a call written as Python, and a model that writes the
# observation itself instead of waiting for it.

# %%
MODEL_TEXTS = {
    "clean": 'Thought: I need the forecast.\nAction: get_weather\n'
             'Action Input: {"city": "Shanghai", "date": "2026-12-01"}',
    "comment after the JSON": 'Thought: I need the forecast.\nAction: get_weather\n'
                              'Action Input: {"city": "Shanghai", "date": "2026-12-01"}  // tomorrow',
    "'Action:' in the thought": 'Thought: flights depend on the weather, so my first Action: check the forecast.\n'
                                'Action: get_weather\nAction Input: {"city": "Shanghai", "date": "2026-12-01"}',
    "no Action Input line": 'Thought: now the flights.\n'
                            'Action: search_flights(origin="BJS", destination="SHA", date="2026-12-01")',
    "model writes the Observation": 'Thought: I need the forecast.\nAction: get_weather\n'
                                    'Action Input: {"city": "Shanghai", "date": "2026-12-01"}\n'
                                    'Observation: sunny, 20 °C\nFinal Answer: Sunny and 20 °C tomorrow.',
}


def parse_outcome(text: str) -> str:
    try:
        parsed = parse_react(text)
    except ParseError as exc:
        return f"ParseError: {exc}"
    if isinstance(parsed, str):
        return f"final answer {parsed!r}"
    tool, arguments = parsed
    if tool not in TEXT_TOOLS:
        return f"unknown tool {tool!r}"
    return f"call {tool}({json.dumps(arguments)})"


for case, text in MODEL_TEXTS.items():
    print(f"{case:<30} -> {parse_outcome(text)}")

# %% [markdown]
# Only the clean text parses as intended. The last case is the worst because nothing fails: the
# parser hands back an answer the model invented, and no tool ever ran. (LangChain's ReAct parser
# refuses a text that holds both a parsable action and a final answer; this toy one has no such check.)
#
# The usual remedy was to send the parse error back as the observation and let the model try again.
# When the slip is a habit of the model (here, the comment after the JSON), the retry repeats it,
# and the loop turns until its step limit: a **format mismatch loop**.

# %%
def text_react_loop(model_replies, max_steps: int = 5) -> None:
    tools_run = 0
    for step in range(1, max_steps + 1):
        text = next(model_replies)  # one model request
        try:
            parsed = parse_react(text)
        except ParseError as exc:
            print(f"step {step}: Observation: Invalid format, {exc}. Please follow the format.")
            continue  # the error goes back to the model, which answers with the same habit
        if isinstance(parsed, str):
            print(f"step {step}: final answer {parsed!r}")
            return
        tools_run += 1
    print(f"stopped by the step limit after {max_steps} model requests; tools run: {tools_run}")


def same_habit():
    while True:  # a model that writes its comment after the JSON every single time
        yield MODEL_TEXTS["comment after the JSON"]


text_react_loop(same_habit())

# %% [markdown]
# **Native function calling** removes the parser. The API returns tool calls as structured fields,
# separate from the text: an id, a tool name and the arguments (OpenAI sends them as a JSON *string*
# the caller must parse; Anthropic's `tool_use` block carries an `input` *object*). There is no format
# to negotiate, and "Action:" in the reasoning is just words. Parsed-text ReAct is now mostly met with
# models or serving stacks that lack native tool calling; knowing why it was replaced is a bonus point
# in interviews.
#
# A string of arguments can still be malformed JSON. The difference is where that lands: the kit's
# executor answers the call with an error result the model can read, and the loop carries on.

# %%
demo = Episode.from_scenario(find("happy-path"))
bad_call = ToolCall("call_demo", "get_weather", '{"city": "Shanghai", "date": "2026-12-01"}  // tomorrow')
print(demo.tools.execute(bad_call).content)

# %% [markdown]
# The same holds when the tool itself raises. In the `exception-secret` scenario the order database
# tool throws an exception whose text is a whole stack trace. Called directly, the exception flies;
# through `execute`, the call is answered with an error result, and nothing leaves the loop (lesson 5
# is about what that result should say):

# %%
crash = Episode.from_scenario(find("exception-secret"))
try:
    crash.tools.invoke("query_orders", {"order_id": "A1234"}, "call_direct")  # the raw tool
except Exception as exc:
    print(f"invoke raised {type(exc).__name__}: {len(str(exc))} characters of stack trace")
print(crash.tools.execute(ToolCall("call_demo2", "query_orders", '{"order_id": "A1234"}')).content)

# %% [markdown]
# ## 3. Build the loop, one cell per move
#
# The kit gives a run everything as one `Episode`: the model, the tools, the clock and the meters.
# The scenario is `happy-path`: a trip question that needs the weather and the flights.

# %%
scenario = find("happy-path")
episode = Episode.from_scenario(scenario, model=live_model())
messages = episode.initial_messages()  # [system, user]
for m in messages:
    print(f"{m.role:>6}: {m.text}")
print(f" tools: {', '.join(episode.tools.names)}")

# %% [markdown]
# **Reason.** One step is one request: the whole history plus the tool schemas go to the model.

# %%
turn = episode.model.complete(messages, episode.tools.specs)
print(f"finish_reason: {turn.finish_reason}")
print(f"text:          {turn.text}")
for call in turn.tool_calls:
    print(f"tool call:     {call.id}  {call.name}({call.arguments})")

# %% [markdown]
# **Record, then act.** The assistant turn goes into the history *first*: it carries the tool-call
# ids. Then the code runs every call of the turn (these are parallel calls: all of them must be
# answered before the next request) and appends one result per call.

# %%
messages.append(turn.message)  # the assistant turn, tool calls included
for call in turn.tool_calls:
    observation = episode.tools.execute(call)  # act: runs in our code, never raises
    messages.append(observation)  # observe: answers call.id
    print(f"{observation.call_id} -> {observation.content}")

# %% [markdown]
# **Reason again.** Same request shape, longer history. A turn with no tool calls is the answer.

# %%
turn = episode.model.complete(messages, episode.tools.specs)
messages.append(turn.message)
print(f"finish_reason: {turn.finish_reason}, tool calls: {len(turn.tool_calls)}")
print(turn.text)

# %%
result = episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
for key, value in result.summary().items():
    print(f"{key:>13}: {value}")

# %% [markdown]
# ### What went over the wire
#
# The kit keeps a provider-neutral history; `to_wire` shows the exact request body each API gets.
# In the **OpenAI Chat Completions** shape, the assistant message carries `tool_calls`, and each
# result is a message with role `tool` and the `tool_call_id` it answers:

# %%
chat = to_wire(result.messages, episode.tools.specs, "openai-chat")
print(json.dumps(chat["messages"], indent=1, ensure_ascii=False))

# %%
print(json.dumps(chat["tools"][0], indent=1))  # each tool is offered with its JSON Schema

# %% [markdown]
# The same conversation in the **Anthropic Messages** shape, from a run whose model speaks that wire
# (`Episode.from_scenario(..., wire="anthropic")` overrides the scenario's `model.wire`). The system
# prompt travels beside the messages; calls are `tool_use` blocks; results are `tool_result` blocks
# inside the next *user* message, all of a turn's results in one message, with `is_error` when a call
# failed.

# %%
from reference.loops.react import react_loop as reference_loop

claude_episode = Episode.from_scenario(scenario, wire="anthropic")  # the same scenario, another wire
claude_result = reference_loop(claude_episode)
claude = to_wire(claude_result.messages, claude_episode.tools.specs, "anthropic")
print("system:", claude["system"])
print(json.dumps(claude["messages"], indent=1, ensure_ascii=False))

# %% [markdown]
# ### Streamed tool calls: the arguments arrive in pieces
#
# Real clients often ask with `stream=True`, and then a tool call does not arrive whole. On Chat
# Completions, the first chunk of a call carries its `index`, `id`, `type` and name with empty
# arguments; the chunks after it carry only the `index` and a *fragment* of the arguments string.
# Parallel calls interleave by `index`. The arguments are valid JSON only once the chunk with the
# finish reason has arrived. Here is the first turn of the run above as the service would stream it
# (`reference/wire/streaming.py` cuts it the way the services do; `loopkit serve` sends exactly this):

# %%
from reference.core.model import Turn
from reference.wire import openai_chat
from reference.wire.streaming import sse_events

first = next(m for m in result.messages if getattr(m, "tool_calls", ()))
body = openai_chat.response_from_turn(Turn(first.text, first.tool_calls, "tool_calls"), response_id="chatcmpl-1")
chunks = [data for _, data in sse_events("openai-chat", body) if data != "[DONE]"]
for chunk in chunks:
    print(json.dumps(chunk["choices"][0]["delta"], ensure_ascii=False))

# %% [markdown]
# Assembling them is the client's job, and a classic place for a parser that disagrees with the
# wire. Two common slips: keying the calls by `id` (only the first chunk of a call has one, so a
# fragment goes to whichever call was named last), and parsing each fragment as it comes.
# The right way keys by `index`, concatenates, and parses once, at the end:

# %%
def assemble_by_index(chunks):
    calls = {}
    for chunk in chunks:
        for delta in chunk["choices"][0]["delta"].get("tool_calls") or []:
            call = calls.setdefault(delta["index"], {"id": None, "name": None, "arguments": ""})
            call["id"] = delta.get("id") or call["id"]
            call["name"] = delta.get("function", {}).get("name") or call["name"]
            call["arguments"] += delta.get("function", {}).get("arguments", "")
    return [calls[i] for i in sorted(calls)]


def assemble_by_id(chunks):  # the slip: fragments after the first chunk of a call have no id
    calls, last = {}, None
    for chunk in chunks:
        for delta in chunk["choices"][0]["delta"].get("tool_calls") or []:
            last = delta.get("id") or last  # "the fragment belongs to the call we saw last"
            call = calls.setdefault(last, {"id": last, "name": delta.get("function", {}).get("name"), "arguments": ""})
            call["arguments"] += delta.get("function", {}).get("arguments", "")
    return list(calls.values())


def parses(arguments):
    try:
        json.loads(arguments)
        return "parses"
    except ValueError:
        return "does NOT parse"


for name, assemble in (("by index", assemble_by_index), ("by id", assemble_by_id)):
    print(name)
    for call in assemble(chunks):
        print(f"  {call['name']}: {call['arguments']!r} {parses(call['arguments'])}")

# %% [markdown]
# In this stream the calls come one after the other, so keying by the last id seen happens to work;
# a service that interleaves parallel calls (each chunk names only its `index`) breaks it. Check it
# directly: interleave the fragments of the calls, fragment by fragment, and assemble again.

# %%
def interleave(chunks):
    """The same fragments, parallel calls alternating (what a service may send)."""
    head = [c for c in chunks if not c["choices"][0]["delta"].get("tool_calls")][:1]
    per_call = {}
    for c in chunks:
        for d in c["choices"][0]["delta"].get("tool_calls") or []:
            per_call.setdefault(d["index"], []).append(c)
    rounds = max(len(v) for v in per_call.values())
    mixed = [per_call[i][r] for r in range(rounds) for i in sorted(per_call) if r < len(per_call[i])]
    return head + mixed + [c for c in chunks if c["choices"][0]["finish_reason"]]


for name, assemble in (("by index", assemble_by_index), ("by id", assemble_by_id)):
    print(name)
    for call in assemble(interleave(chunks)):
        print(f"  {call['name']}: {call['arguments']!r} {parses(call['arguments'])}")

# %% [markdown]
# The broken assembler hands the model's "malformed" arguments to the tools, the loop reports a
# parse error, and the model, which sent valid JSON, sends the same call again: a loop made by the
# client's parser, not by the model (lesson 5 classifies the error; lesson 3 sees the repetition).
# The official SDKs' stream helpers assemble by index for you (`client.chat.completions.stream(...)`
# then `get_final_completion()`; `client.messages.stream(...)` then `get_final_message()` for
# Anthropic, whose `input_json_delta` pieces are keyed by the block `index` the same way).

# %% [markdown]
# ## 4. Exercise: the loop, from memory
#
# Section 3 made one run by hand, move by move. Now write the loop that makes any run, with a way out
# when the model answers and another when it never does, and write it from memory: an interviewer asks
# for exactly this on a whiteboard, with no cells above to copy. Scroll them away. The task and the few
# names of the kit you need are in `exercises/ex01_react_loop.py`; write it there, then check it from the
# repository root (`--watch` checks again each time you save):
#
# ```
# loopkit check ex01        # runs tests/test_ex01_react_loop.py against your file
# loopkit check --watch ex01
# loopkit hint ex01         # hints escalate: loopkit hint ex01 2, 3, ...
# ```
#
# The tests run your loop on the scenarios above and on deliberately broken tools. They fail with a
# story, for example which request the API refused and why. Write it before you read on: the next
# section is the answer. The first hint:

# %%
from reference.cli import main as loopkit

exit_code = loopkit(["hint", "ex01", "1"])  # what `loopkit hint ex01 1` prints in a shell

# %% [markdown]
# ## 5. The answer: the 20 lines
#
# Put the moves in a `for` loop and you have the whole lesson-1 loop: two exits (an answer, or the
# step limit) and one body.

# %%
def react_loop(episode: Episode, max_steps: int = 8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)  # reason: one model request
        messages.append(turn.message)  # the assistant turn, tool calls included
        if not turn.tool_calls:  # exit 1: a final answer
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:  # act, in code
            messages.append(episode.tools.execute(call))  # observe
    return episode.finish(StopReason.MAX_STEPS, messages,  # exit 2: the fuse
                          detail=f"stopped after {max_steps} steps without an answer")


mine = react_loop(Episode.from_scenario(scenario))
theirs = reference_loop(Episode.from_scenario(scenario))
print(mine.stop_reason.value, "|", mine.answer)
print("same run as reference.loops.react:", mine.summary() | {"loop": ""} == theirs.summary() | {"loop": ""})

# %% [markdown]
# ## 6. What goes wrong (1): the lost assistant message
#
# A classic whiteboard slip: append the tool results but not the assistant message that asked for
# them. The next request holds results that answer nothing the service can see, and it is refused
# with HTTP 400. The kit's scripted model runs the same protocol check as the real services and
# raises `ProtocolError` carrying their error text (typos included: OpenAI's message really says
# "preceeding"). A real SDK raises its `BadRequestError` with the same body.

# %%
def forgetful_loop(episode: Episode, max_steps: int = 8):
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages + [turn.message], answer=turn.text)
        # the bug: messages.append(turn.message) is missing
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)


refused_at = {}
for wire in ("openai-chat", "anthropic"):
    broken = Episode.from_scenario(scenario, wire=wire)
    try:
        forgetful_loop(broken)
    except ProtocolError as err:
        refused_at[wire] = len(broken.ledger.steps) + 1
        print(f"{wire}: request {refused_at[wire]} refused, HTTP {err.status_code}")
        print(json.dumps(err.body, indent=1))

# %% [markdown]
# In production this is not a test failure but an outage of the whole agent: every conversation
# that reaches a tool call dies on its second request.
#
# ## 7. What goes wrong (2): the step limit is the only brake
#
# The 20-line loop has one exit besides the answer. Run it on every scenario of the kit's catalogue,
# each one scripted way an agent loop goes wrong (`loopkit scenarios` lists them), with the step limit
# each scenario sets:

# %%
from reference.cli.table import print_table
from reference.runs.runner import run_catalogue, within_budget

results = {}
rows = run_catalogue(catalogue(), "react", on_result=lambda s, r: results.__setitem__(s.name, (s, r)))
for r in rows:
    r["tokens"] = r["input_tokens"] + r["output_tokens"]

COLUMNS = [("scenario", "scenario"), ("stop_reason", "stop reason"), ("model_calls", "model calls"),
           ("oracle_model_calls", "oracle"), ("tool_calls", "tool calls"), ("tokens", "tokens"),
           ("cost_usd", "cost $"), ("sim_seconds", "sim s"), ("completed", "task done")]


print_table(rows, COLUMNS)

# %% [markdown]
# `oracle` is the number of model calls a well-designed loop needs where the scenario can be
# completed; `task done` means the user got an answer that counts (right content, within budget).
# `sim s` is simulated seconds. What the table says, computed from the runs above:

# %%
n = len(rows)
answered = [r for r in rows if r["completed"]]
fused = [r for r in rows if r["stop_reason"] == StopReason.MAX_STEPS.value]
late = [r["scenario"] for r in rows if r["stop_reason"] == StopReason.COMPLETED.value and not r["completed"]]
over_budget = [name for name in late if not within_budget(*results[name])]
total_tokens = sum(r["tokens"] for r in rows)
total_cost = sum(r["cost_usd"] for r in rows)
fused_cost = sum(r["cost_usd"] for r in fused)
priciest = max(rows, key=lambda r: r["cost_usd"])
step_sizes = [s.input_tokens for _, res in results.values() for s in res.steps]
wasted_calls = sum(r["model_calls"] - r["oracle_model_calls"] for r in rows
                   if r["completable"] and r["oracle_model_calls"] and not r["completed"])

display(Markdown(f"""
- **{len(answered)} of {n}** runs gave the user an answer that counts; {sum(r['completable'] for r in rows)}
  of the {n} scenarios can be completed at all.
- **{len(fused)} of {n}** runs ended at the step limit, with no answer. They made
  {sum(r['model_calls'] for r in fused)} of the {sum(r['model_calls'] for r in rows)} model calls and
  cost **\\${fused_cost:.2f} of \\${total_cost:.2f}** ({fused_cost / total_cost:.1%}) in simulated spend.
- Where a scenario could have been completed but was not, the loop made {wasted_calls} model calls more
  than the oracle needed.
- The most expensive run, `{priciest['scenario']}`, made {priciest['model_calls']} model calls,
  read {priciest['tokens']:,} tokens and cost \\${priciest['cost_usd']:.2f}: the step limit bounds the
  number of requests, not what each request costs.
- One request read between {min(step_sizes):,} and {max(step_sizes):,} input tokens: a step is not a unit
  of cost.
- Answered, but too late to count (over the scenario's budget): {', '.join(f'`{x}`' for x in over_budget) or 'none'}.
"""))

# %% [markdown]
# What the user receives when the fuse blows is the other red flag: no answer, just a note.

# %%
stuck = results["repeat-exact"][1]
print(f"stop reason: {stuck.stop_reason.value}")
print(f"answer:      {stuck.answer!r}")
print(f"detail:      {stuck.detail!r}")
executed = [(t.name, json.dumps(t.arguments, sort_keys=True)) for s in stuck.steps for t in s.tools]
print(f"tool calls:  {len(executed)} executed, {len(set(executed))} distinct: {executed[0][0]}({executed[0][1]})")

# %% [markdown]
# The same runs as a picture: the "before" that the next lessons improve. Bars are model calls,
# tokens and cost per scenario (log scale for the last two); green: task done, red: not done; the
# black marks are the oracle's model calls.

# %%
import logging

logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # no font-cache notice on a fresh machine
import matplotlib.pyplot as plt

names = [r["scenario"] for r in rows]
colours = ["tab:green" if r["completed"] else "tab:red" for r in rows]
fig, axes = plt.subplots(1, 3, figsize=(13, 5.5), sharey=True)
panels = [("model_calls", "model calls", False), ("tokens", "tokens (log)", True), ("cost_usd", "cost $ (log)", True)]
for ax, (key, label, log) in zip(axes, panels):
    ax.barh(names, [r[key] for r in rows], color=colours)
    ax.set_title(label)
    if log:
        ax.set_xscale("log")
    ax.grid(axis="x", alpha=0.3)
oracle = [(r["oracle_model_calls"], name) for r, name in zip(rows, names) if r["oracle_model_calls"]]
axes[0].scatter([o for o, _ in oracle], [name for _, name in oracle], marker="|", s=200, color="black", zorder=3)
axes[0].invert_yaxis()
from matplotlib.patches import Patch

axes[0].legend(handles=[Patch(color="tab:green", label="task done"), Patch(color="tab:red", label="not done"),
                        plt.Line2D([], [], color="black", marker="|", linestyle="", markersize=12, label="oracle")],
               loc="lower right")
fig.suptitle("Lesson-1 loop on the scenario catalogue (scripted model, simulated clock)")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 8. The reference solution, graded
#
# The reference solution is `solutions/ex01_react_loop.py`. Load it straight from the file and run
# it through the same grader the tests use, on a scenario it completes and one it cannot.
# (`load_exercise("ex01", "exercises")` loads yours.)

# %%
from reference.sandbox.grading import run_candidate

solution = load_exercise("ex01")  # load_exercise("ex01", "exercises"): yours

for name in ("happy-path", "repeat-exact"):
    attempt = run_candidate(solution.react_loop, name)
    print(attempt.story())
    print(f"    answer: {attempt.result.answer!r}")

# %% [markdown]
# The second run is the lesson's cliffhanger: the loop is correct, and it still burns its whole step
# budget on a model that repeats itself, then hands the user nothing. The next lessons add the
# other exits.
#
# ## 9. The interview
#
# The figures below come from the runs above.

# %%
display(Markdown(f"""
**The task.** Write the agent loop from memory, with no framework: a whiteboard or a shared editor,
about a screenful of code. Someone who has wired an agent by hand has had to decide what a framework
otherwise decides for them (what goes into the history, who runs the tools, when the loop gives up),
and the discussion moves to those decisions at once: is a reply without tool calls the only normal
end? What happens when the model asks for the same tool again and again? Where does the step limit
come from? (Lesson 2 answers the last one from a fleet of measured runs.)

**Where this notebook showed each red flag:**

| what the interviewer hears | what it cost here |
|---|---|
| a step limit as the only brake | section 7: {len(fused)} of {n} catalogue runs ended at the fuse with no answer, {fused_cost / total_cost:.1%} of the simulated spend |
| tool results appended without the assistant turn that asked for them | section 6: HTTP 400 on request {' and '.join(f'{k} ({w})' for w, k in refused_at.items())} |
| "max steps reached" passed to the user as the output | section 7: `answer=None` after {len(executed)} tool calls on `repeat-exact` |
| a tool exception allowed to leave the loop | section 2: `query_orders` raises; `execute` answers the call with an error result instead |
| the words Thought, Action, Observation, but no stop condition | sections 2 and 5 |

**What a strong answer shows:**

1. *The unit of work.* One pass of the loop is one model request; a turn may ask for several tools,
   and the code, not the model, runs them. Cost and time are counted per request, and requests are
   not alike: one read {min(step_sizes):,} input tokens, another {max(step_sizes):,} (section 7).
2. *The history.* The assistant turn with its tool calls goes in first, then one result per call id;
   every parallel call is answered before the next request.
3. *More than one way out.* Normal: a reply with no tool calls. Resource: the step limit, and token,
   time and cost limits beside it, because steps differ so much in size. Abnormal: the model
   repeating itself, tools that keep failing, steps that bring nothing new. Lesson 2 names every exit
   and splits the abnormal ones into *guard* exits and *no-progress* exits.
4. *Failures stay inside.* A tool error or exception becomes a result the model can read and act on;
   the loop itself never raises.
5. *Something useful at a limit.* What was found, what is missing and what the user can do next
   (lesson 4), rather than `answer=None`.
6. *Extra credit.* Why native tool calling replaced parsing the model's text (section 2).

A weak answer stops at point 1 plus a step limit; the rest of the kit is about points 3 to 5.
"""))
