# ---
# # Lesson 5 source. Edit this file, then rebuild and re-run the notebook:
# #     python notebooks/build.py 05
# # Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# # in prose is computed by a cell (Markdown built from f-strings): never type a measured number.
# ---

# %% [markdown]
# # Lesson 5: tool errors that do not turn into loops
#
# *About 25 minutes to read and run; the exercise's core takes about 85 more, its stretch about 80.*
# (Reading estimated from the text at 150 words a minute, the code at 30 lines a minute and the outputs
# skimmed; every cell runs in seconds. docs/workshop.md says how the exercise times were estimated.)
#
# A failing tool is the second great source of agent loops. The model calls the same broken tool
# again, reads an error as if it were data, or gets a stack trace it cannot act on and guesses. The
# interview card asks for three things here:
#
# - an exception **never escapes** the loop: one timeout must not kill the agent;
# - **retryable** errors (a timeout, a dropped connection, a rate limit, a 5xx) are retried **in
#   code**, with backoff, so that a retry that works is invisible to the model;
# - everything else is **translated** into something the model can act on ("parameter `date` needs
#   YYYY-MM-DD, for example 2026-12-01"), never the raw stack trace: it costs tokens, the model
#   cannot act on it, and it leaks internals.
#
# Plus two things that follow: a tool that keeps failing is **withdrawn** (a circuit breaker), and an
# HTTP 200 whose body says `success: false` is a **failure**, not data.
#
# Break it, observe it in the run record, fix it, test it.

# %% [markdown]
# ## Setup

# %%
from __future__ import annotations

import json
import traceback

from kit import ROOT, load_exercise  # notebooks/kit.py: puts the repository root on sys.path; loads solutions/ and exercises/

from IPython.display import Markdown, display

from reference import Episode, ToolMessage, find
from reference.sim import tokens
from reference.parts.executor import taxonomy
from reference.parts.executor import ResilientExecutor
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Executor, Parts, PlainExecutor
from reference.cli.table import print_table as table
from reference.runs.runner import evaluate

LESSON5 = ["flaky-timeout", "rate-limited", "bad-date-format", "business-failure", "exception-secret",
           "tool-down", "schema-mismatch", "malformed-calls"]


def run_guarded(name: str):
    """The guarded loop with every part of lessons 2-5 (reference/runs/registry.py)."""
    from reference.runs.runner import run
    return run(find(name), "guarded")


def play(name: str, make_executor) -> tuple[Episode, object, object]:
    """Run a scenario through the guarded loop with the given executor; (episode, executor, result)."""
    scenario = find(name)
    episode = Episode.from_scenario(scenario)
    executor = make_executor(episode)
    result = guarded_loop(episode, scenario.limits.max_steps, Parts(executor=executor))
    return episode, executor, result


def attempts(result) -> int:
    """Tool attempts, retries included: the ledger records every one."""
    return sum(len(step.tools) for step in result.steps)


def row(name: str, result) -> dict:
    return {"scenario": name, "stop": result.stop_reason.value, "model calls": result.model_calls,
            "tool attempts": attempts(result), "sim s": round(result.sim_seconds, 2),
            "meets expect": all(c.ok for c in evaluate(find(name), result))}

# %% [markdown]
# ## 1. Break it: the executor everybody writes first
#
# One executor, four classic mistakes, each of which looks reasonable on its own:
#
# 1. **the exception goes back to the model** as it is ("it can read the error and fix its call");
# 2. **every failure is retried**, invalid arguments included;
# 3. **HTTP 200 means success**, whatever the body says;
# 4. **a retry decorator** around a function that catches its own exceptions and returns them: the
#    decorator retries when the function raises, and the function never raises. This one appears in
#    public reference code; both halves pass a code review on their own.

# %%
def retry(times: int = 3, wait: float = 1.0):
    """Retry the call when it raises (mistake 4, first half)."""
    def decorate(fn):
        def wrapper(self, episode, call):
            for attempt in range(times):
                try:
                    return fn(self, episode, call)
                except Exception:
                    if attempt == times - 1:
                        raise
                    episode.clock.sleep(wait * 2 ** attempt)
        return wrapper
    return decorate


class NaiveExecutor(Executor):  # the protocol of the executor hook
    def offered(self, episode):
        return episode.tools.specs

    def after_step(self, episode):
        return None

    @retry(times=3)
    def execute(self, episode, call):
        for attempt in range(3):  # mistake 2: any failure is retried
            try:
                outcome = episode.tools.invoke(call.name, json.loads(call.arguments), call.id)
            except Exception as exc:  # mistake 4, second half: nothing is left for @retry to see
                text = "".join(traceback.format_exception_only(type(exc), exc))
                return ToolMessage(call.id, text, is_error=True)  # mistake 1
            if outcome.ok:  # mistake 3: HTTP 200 is success
                return ToolMessage(call.id, outcome.to_content())
            episode.clock.sleep(1.0)
        return ToolMessage(call.id, outcome.to_content(), is_error=True)


naive_runs = {name: play(name, lambda ep: NaiveExecutor()) for name in LESSON5}
table([row(name, result) for name, (_, _, result) in naive_runs.items()])

# %% [markdown]
# ## 2. Observe it in the run record
#
# The ledger records every tool attempt (name, arguments, outcome or exception class, start time on
# the simulated clock, duration), and the scripted model keeps every request it received: what the
# model saw. Four readings.
#
# **The stack trace.** `exception-secret`: the order database raises, and the exception's text is
# itself a stack trace from the database layer. Here is what the model got:

# %%
episode, _, result = naive_runs["exception-secret"]
shown = next(m.content for m in result.messages if isinstance(m, ToolMessage))
print(shown[:900])

# %%
NEEDLES = ["FAKE-PASSWORD-not-real", "sk-FAKE0000notarealkey0000", "orders-db-prod-7", "10.20.3.7",
           "/srv/orders-api", "SELECT", "Traceback", "psycopg2"]
seen_by_model = [json.dumps(r.wire_body) for r in episode.scripted.requests]
leaked = [n for n in NEEDLES if any(n in body for body in seen_by_model)]
trace_tokens = tokens.count(shown)
requests_with_it = sum(1 for body in seen_by_model if "psycopg2" in body)
display(Markdown(f"""
Everything internal went out: **{len(leaked)} of {len(NEEDLES)}** planted secrets and internals reached
the model's requests ({', '.join(f'`{n}`' for n in leaked[:4])}, ...). The trace is about **{trace_tokens}
tokens**, and since the history is re-sent on every step, it was paid for in **{requests_with_it}**
requests. And the model cannot act on any of it: it does not know that another tool can answer, so
it calls the broken one again until the step limit ({result.model_calls} model calls).
"""))

# %% [markdown]
# **The retry that never fires.** `flaky-timeout`: the weather API times out twice, then answers.
# The decorator should have covered that. The first step's attempts, from the ledger:

# %%
episode, _, result = naive_runs["flaky-timeout"]
for record in result.steps[0].tools:
    print(f"t={record.started:6.2f}s  {record.name}  {record.exception or 'ok'}  ({record.seconds:.1f}s)")
first_result = next(m for m in result.messages if isinstance(m, ToolMessage))
display(Markdown(f"""
**{len(result.steps[0].tools)}** attempt: the inner `except` turned the timeout into a return value, so
`@retry` saw a normal return and had nothing to retry. The model got
`{first_result.content.strip()[:70]}`. This scripted model then follows its plan and
"answers", stop reason `{result.stop_reason.value}`, yet no tool result in the history supports its
answer: the only result is an exception. A run that "completed" is not a run that worked.
"""))

# %% [markdown]
# **Retrying what cannot succeed.** `bad-date-format`: the model writes the date as 01/12/2026; the
# weather API answers HTTP 400. The naive executor retries the 400, the model gets the API's terse
# "Invalid value for 'date'." and, not knowing what to change, sends the same call again:

# %%
episode, _, result = naive_runs["bad-date-format"]
per_step = [len(step.tools) for step in result.steps if step.tools]
statuses = sorted({(t.outcome or {}).get("http_status") for s in result.steps for t in s.tools})
# Waiting is the time in a step that is neither the model nor a tool: the executor's sleeps.
ends = [s.started for s in result.steps[1:]] + [result.sim_seconds]
between, after_last = [], []
for s, end in zip(result.steps, ends):
    if s.tools:
        between += [b.started - (a.started + a.seconds) for a, b in zip(s.tools, s.tools[1:])]
        after_last.append(end - (s.tools[-1].started + s.tools[-1].seconds))
no_retry = play("bad-date-format", lambda ep: PlainExecutor())[2]  # the lesson-1 executor: one attempt per call
print(f"waits between attempts: {sorted(set(round(w, 2) for w in between))} s; "
      f"after the last attempt of a call: {sorted(set(round(w, 2) for w in after_last))} s")
display(Markdown(f"""
{len(per_step)} calls, **{sum(per_step)} attempts** ({per_step[0]} per call), every one answered
HTTP {', '.join(map(str, statuses))}: a 400 fails the same way every time, so every retry was wasted.
The ledger shows **{sum(between) + sum(after_last):.0f} s of waiting** in a run of {result.sim_seconds:.2f} s
(without retries, the same {no_retry.model_calls} model calls took {no_retry.sim_seconds:.2f} s):
{sum(between):.0f} s between attempts, and another **{sum(after_last):.0f} s after the last attempt** of each
call, when there was nothing left to retry. That trailing sleep is a further bug of this naive retry: it
waits *before* giving up, so every failed call pays one wait for nothing. The run ended at
`{result.stop_reason.value}` after {result.model_calls} model calls.
"""))

# %% [markdown]
# **HTTP 200 read as data.** `business-failure`: the refund API says HTTP 200,
# `{"success": false, "error_code": "REFUND_WINDOW_CLOSED", ...}`. Passed on as `ok: true`:

# %%
episode, _, result = naive_runs["business-failure"]
calls = [c["name"] for s in result.steps for c in s.tool_calls]
down = naive_runs["tool-down"][2]
print(next(m.content for m in result.messages if isinstance(m, ToolMessage))[:200])
display(Markdown(f"""
The model took the refund as accepted and went on to check its status: {calls.count('get_refund_status')}
calls to `get_refund_status` (which never shows a refund), until the step limit, {result.model_calls}
model calls in all. And `tool-down`, a service answering 503 to everything: the model kept calling it,
**{attempts(down)} attempts** over {down.model_calls} model calls, no end but the step limit.
"""))

# %% [markdown]
# ## 3. Exercise: an executor whose errors do not turn into loops
#
# Sections 1 and 2 showed the executor everybody writes first: a stack trace for the model, retries
# that cannot help, secrets on the wire. Write the one that keeps failures inside: it decides by the
# kind of error whether to retry unseen, tell the model something it can act on, or stop calling a
# tool that is down, and nothing internal reaches the model. It comes in two parts, each in a file of
# its own that states the task and what you are given:
#
# - **The core**, `exercises/ex05_tool_errors.py` (about 85 minutes): classify failures, retry what can
#   heal on the simulated clock, translate the rest into an error the model can act on, never raise.
# - **The stretch**, `exercises/ex05b_errors_stretch.py` (about 80 minutes, after the core passes):
#   malformed calls checked against the tool's schema and answered with an example, circuit breakers
#   that withdraw a tool, and the same rejected call stopped. It imports the core's answers.
#
# (The times are estimates from the size of each solution; docs/workshop.md says how.) Check each from
# the repository root:
#
# ```
# loopkit check ex05        # runs tests/test_ex05_tool_errors.py against your file
# loopkit check --watch ex05
# loopkit hint ex05         # hints escalate: loopkit hint ex05 2, 3, ...
# loopkit check ex05b       # the stretch: tests/test_ex05b_errors_stretch.py
# ```

# %%
solution_path = ROOT / "solutions" / "ex05_tool_errors.py"
solution_lines = solution_path.read_text(encoding="utf-8").splitlines()
code_lines = [line for line in solution_lines if line.strip() and not line.lstrip().startswith("#")]
display(Markdown(f"""
For scale: the core's reference solution is {len(solution_lines)} lines ({len(code_lines)} that are neither
blank nor comments), smaller than the kit's executor in section 4. The tests replay these scenarios, feed
secrets through every error path, and catch the classic wrong answers, each a file in `tests/red_flags/`: in
the core, the stack trace to the model, an exception that escapes, retrying invalid arguments, the retry
decorator that cannot fire and HTTP 200 read as data; in the stretch, "please try again", a circuit opened by
the caller's own mistakes and a breaker shared by every run. Write it before you read on: sections 4 to 6 are the
answer. The first hint:
"""))

# %%
from reference.cli import main as loopkit

exit_code = loopkit(["hint", "ex05", "1"])  # what `loopkit hint ex05 1` prints in a shell

# %% [markdown]
# ## 4. Fix it
#
# ### One table decides
#
# `reference/parts/executor/taxonomy.py` holds the taxonomy in one place. The decision comes from
# the HTTP status and the exception's class, never from the tool's own `retryable` flag, and never
# from reading the exception's text:

# %%
table([{"error_type": name, "retryable": "yes" if k.retryable else "no",
        "opens the circuit": "yes" if k.tool_fault else "no", "the model is told": k.summary.split(".")[0]}
       for name, k in taxonomy.KINDS.items()])

# %% [markdown]
# `reference/parts/executor/` builds the `executor` part of the guarded loop on it. For one call:
#
# 1. a malformed call never reaches a tool: unknown name, tool not offered (or withdrawn), arguments
#    that are not a JSON object, arguments that break the tool's JSON Schema (checked with the
#    `jsonschema` package);
# 2. the call runs; a retryable failure is retried **in code**: exponential backoff with seeded
#    *equal jitter* (half of each wait fixed, the other half random, so that clients that failed
#    together do not all retry at the same instant), Retry-After honoured, a capped number of
#    attempts, and never a wait that would overrun the run's time budget. All waiting is on the
#    simulated clock;
# 3. what still fails becomes a structured result: `error_type`, `retryable: false` (the code already
#    retried), a message, and where it applies the argument, what was expected, an example, an
#    alternative tool and an instruction. A tool's own words pass only if they hold nothing internal
#    (`safe_text` in redaction.py fails closed);
# 4. two failed calls in a row that were the tool's fault withdraw it for the rest of the run; when
#    every tool the task still needs is withdrawn, the run stops with `circuit_open`;
# 5. the same rejected call three times stops the run (`repeated_call`).
#
# One more layer to count, one level up: the official OpenAI and Anthropic Python SDKs already retry
# a *model* request that gets 408, 409, 429 or a 5xx, twice by default (see the kit's provider notes).
# Retrying the model call in your own code on top multiplies the attempts, so set the SDK's
# `max_retries` deliberately: 0 where your code owns the retries.
#
# Same scenarios, same model, new executor:

# %%
fixed_runs = {name: play(name, ResilientExecutor.for_episode) for name in LESSON5}
rows = []
for name in LESSON5:
    before, (_, executor, after) = naive_runs[name][2], fixed_runs[name]
    rows.append({"scenario": name, "stop before": before.stop_reason.value, "stop after": after.stop_reason.value,
                 "model calls": f"{before.model_calls} -> {after.model_calls}",
                 "attempts": f"{attempts(before)} -> {attempts(after)}", "retries in code": executor.retries,
                 "sim s": f"{before.sim_seconds:.1f} -> {after.sim_seconds:.1f}",
                 "meets expect": all(c.ok for c in evaluate(find(name), after))})
table(rows)

# %% [markdown]
# ### Retries the model never sees
#
# `flaky-timeout` again. The attempts, the waits between them, and what the model received:

# %%
episode, executor, result = fixed_runs["flaky-timeout"]
for a, record in zip(executor.attempts, result.steps[0].tools):
    print(f"attempt {a.number}  t={record.started:6.2f}s  {record.exception or 'ok':11}  took {record.seconds:4.1f}s"
          f"  then waited {a.waited_after:.2f}s")
errors_seen = [m for r in episode.scripted.requests for m in r.messages if isinstance(m, ToolMessage) and m.is_error]
react = play("flaky-timeout", lambda ep: PlainExecutor())[2]
waits = " and ".join(f"{a.waited_after:.2f} s" for a in executor.attempts[:2])
ranges = []
for number in (1, 2):
    ceiling = min(executor.policy.max_backoff_seconds,
                  executor.policy.base_seconds * executor.policy.multiplier ** (number - 1))
    ranges.append(f"{ceiling / 2:g}-{ceiling:g} s")
display(Markdown(f"""
{len(executor.attempts)} attempts, {executor.retries} of them retries, with waits of {waits}, drawn with equal
jitter from {' and '.join(ranges)}: the ceiling doubles after each failure, and only its upper half is
random. The model was shown **{len(errors_seen)}** errors and answered on call
**{result.model_calls}**. The lesson-1 executor shows it both timeouts; this model then retries by
hand: {react.model_calls} model calls, each re-sending the growing history
({react.usage.input_tokens:,} input tokens against {result.usage.input_tokens:,}).
"""))

# %% [markdown]
# `rate-limited` answers the first attempt with HTTP 429 and `Retry-After: 5`; the server said when,
# so that is the wait (not the backoff):

# %%
episode, executor, result = fixed_runs["rate-limited"]
first, second = result.steps[0].tools
print(f"429 at t={first.started:.2f}s, retried at t={second.started:.2f}s: waited "
      f"{second.started - first.started - first.seconds:.2f}s; the model saw "
      f"{sum(1 for m in result.messages if isinstance(m, ToolMessage) and m.is_error)} errors")

# %%
naive_rl = naive_runs["rate-limited"][2]
hit, retried = naive_rl.steps[0].tools[:2]
display(Markdown(f"""
A caveat that the run record makes visible: this run took **longer** in simulated time than with the naive
executor ({result.sim_seconds:.2f} s against {naive_rl.sim_seconds:.2f} s, see the table). The naive executor
retried in code after its fixed {retried.started - hit.started - hit.seconds:.0f} s, ignoring
`Retry-After: {hit.outcome['retry_after']:g}`, and the fake tool, which does not look at the clock, let that
early retry through. A real rate limiter would have answered it with another 429. Honouring Retry-After
costs the wait; ignoring it costs more calls.
"""))

# %% [markdown]
# ### Errors the model can act on

# %%
for name in ("bad-date-format", "business-failure", "exception-secret", "malformed-calls"):
    _, _, result = fixed_runs[name]
    first_error = next(m for m in result.messages if isinstance(m, ToolMessage) and m.is_error)
    print(f"{name}:\n{json.dumps(json.loads(first_error.content), indent=1, ensure_ascii=False)}\n")

# %%
shown = next(m.content for m in fixed_runs["exception-secret"][2].messages if isinstance(m, ToolMessage))
calls = {name: fixed_runs[name][2].model_calls for name in LESSON5}
display(Markdown(f"""
The translated internal error is about **{tokens.count(shown)} tokens** against **{trace_tokens}** for the
raw exception; it holds none of the internals, and it names the tool that can answer instead. That is
what the cooperative model in `exception-secret` needs: it switches to `get_order_status` and
answers on call {calls['exception-secret']}. In `bad-date-format` the error names the argument, the format and
an example; the model fixes the date at once ({calls['bad-date-format']} calls). In `business-failure` the
HTTP 200 went down the error branch with its code and reason; the model explains the refusal
({calls['business-failure']} calls).
"""))

# %% [markdown]
# ### The circuit breaker
#
# `tool-down`: every attempt gets a 503. Each call is retried, fails, and after the second failed
# call in a row the tool is withdrawn. It is the only tool this task needs, so the run stops. With
# lesson 4's degrader in the loop, the user gets a degraded answer instead of silence:

# %%
from reference.parts.degrade import Degrader

scenario = find("tool-down")
episode = Episode.from_scenario(scenario)
executor = ResilientExecutor.for_episode(episode)
result = guarded_loop(episode, scenario.limits.max_steps, Parts(executor=executor, degrade=Degrader()))
print(f"stop: {result.stop_reason.value} ({result.detail})")
print(f"offered after the run: {[s.name for s in executor.offered(episode)]}")
print(f"the model was told: {json.loads(result.messages[-1].content)['message'][-95:]}\n")
print(result.answer)

# %% [markdown]
# The retries and the breaker on the simulated clock: `flaky-timeout` from above on top, this
# `tool-down` run below.

# %%
import logging

logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # no font-cache notice on a fresh machine
import matplotlib.pyplot as plt
from matplotlib.patches import Patch


def schedule(executor, result) -> list[dict]:
    """Each attempt on the simulated clock: when it started, how long it took, how long the executor waited after."""
    took = {(rec.call_id, rec.started): rec.seconds for step in result.steps for rec in step.tools}
    return [{"call": a.call_id, "number": a.number, "failed": a.error_type is not None, "start": a.started,
             "took": took[(a.call_id, a.started)], "wait": a.waited_after} for a in executor.attempts]


def draw(ax, attempts: list[dict], title: str) -> None:
    calls = list(dict.fromkeys(a["call"] for a in attempts))
    for a in attempts:
        row = calls.index(a["call"])
        ax.barh(row, a["took"], left=a["start"], color="tab:red" if a["failed"] else "tab:green", height=0.5)
        if a["wait"]:
            ax.barh(row, a["wait"], left=a["start"] + a["took"], color="lightgrey", height=0.5, hatch="..")
            ax.text(a["start"] + a["took"] + a["wait"] / 2, row + 0.42, f"{a['wait']:.2f} s", ha="center",
                    fontsize=7.5)
    ax.set_yticks(range(len(calls)), [f"call {n}" for n in range(1, len(calls) + 1)])
    ax.set_ylim(len(calls) - 0.4, -0.5)  # call 1 on top, room for the waits' labels under each row
    ax.set_xlim(0, max(a["start"] + a["took"] + a["wait"] for a in attempts) + 0.5)
    ax.set_title(title, fontsize=10)


fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 4.6), dpi=100)  # fixed size and dpi: reproducible
draw(top, schedule(*fixed_runs["flaky-timeout"][1:]), "flaky-timeout: retried in code with backoff, then it works")
down = schedule(executor, result)  # tool-down, from the cell above
draw(bottom, down, "tool-down: every call fails; after the second failed call the circuit opens")
opened = down[-1]["start"] + down[-1]["took"]
bottom.axvspan(0, opened, color="tab:green", alpha=0.08)
bottom.axvspan(opened, opened + 1.7, color="tab:red", alpha=0.12)
bottom.text(0.1, 0.5, "breaker closed: the tool is offered", fontsize=8, color="darkgreen", va="center")
bottom.text(opened + 0.1, 0.5, "open: withdrawn\nfor the rest of the run", fontsize=8, color="darkred", va="center")
bottom.set_xlim(0, opened + 1.7)
bottom.set_xlabel("simulated seconds")
top.legend(handles=[Patch(color="tab:red", label="failed attempt"), Patch(color="tab:green", label="attempt that worked"),
                    Patch(facecolor="lightgrey", hatch="..", label="backoff wait (seconds under it)")],
           loc="upper left", fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# Only failures that are the **tool's** fault count: retryable ones that ran out of attempts, and
# internal errors. A 400, a 404 or a business rule says the *call* was wrong and the tool is fine, so
# they reset the count. (In production a breaker shared by all runs protects the service: after a
# cool-down it goes *half-open*, letting one trial request through; if that succeeds the tool is back,
# if it fails the cool-down starts again. This per-run one protects the run's steps.)

# %% [markdown]
# ### Retries that know the rest of the budget
#
# A retry is worth it only if the run can still use what it brings. The executor starts an attempt or a
# backoff only when, after it, there is still time for the next model request and the final answer
# (each estimated as the slowest request so far). A Retry-After longer than that ends the retries at
# once, and the run too, as a *resource* stop whose degraded answer says "retry after N s": calling again
# would meet the same 429, and two of those would open the circuit breaker, which would tell the user
# the tool is broken when it is only busy. The same rule covers the model's own request when the
# provider answers 429, 500 or 529 (`fault:` steps in a scenario's script).

# %%
rows = []
for name in ("tool-retry-after-long", "provider-retry-after-long", "provider-overloaded", "retry-is-not-a-loop"):
    res = run_guarded(name)
    rows.append({"scenario": name, "stop": res.stop_reason.value, "kind": res.stop_reason.kind,
                 "model calls": res.model_calls, "sim s": round(res.sim_seconds, 1),
                 "detail": (res.detail or "")[-40:]})
table(rows, list(rows[0]))

# %% [markdown]
# The error body keeps its class when it is translated (`"retryable": true` after a timeout), so the
# loop guard does not count a later call after a retryable error as a loop (`retry-is-not-a-loop`).
#
# What an error tells the loop guard follows from one principle: **a call that failed changed nothing.**
# The same call after the same deterministic error is a repeat (a 400 or a 404 does not heal because the
# user said something new), and the same error class on argument after argument, ids guessed one by one
# with 404 after 404, brings no new information: lesson 3's no-progress rule counts it. But an error that
# says the *resource* changed (HTTP 409 Conflict, 412 Precondition Failed, a new ETag) is news about the
# world: it opens a new state epoch, so reading the resource again for its new ETag is the fix, not a
# repeat. *It prevents* the false stop on an optimistic-concurrency retry, the one place where reading
# the same thing twice is exactly what the API asks for. A call the executor refused for its form
# before any tool saw it (a schema error) says nothing about the world, so it is never counted as a guess.
#
# A log from the field carries no `retryable` flag of ours, so the guard asks the standards instead whether a
# failure **passes by itself**: a connection refused, reset or unreachable and a timeout (the errnos Python
# raises as `ConnectionError` or `TimeoutError`, by name or in the C library's words), an HTTP 408, 429, 502,
# 503 or 504 (a status field, a status line, "504 Gateway Timeout"), gRPC's UNAVAILABLE and
# DEADLINE_EXCEEDED, a `retryable` field (this executor's translation writes one) or an API's own code (Slack's
# `ratelimited`). Such a failure changed nothing, so the same call may go out again, three attempts in all, as
# the SDKs retry; a 400, 404 or 422 says the input is wrong, and sending it again unchanged is a repeat. *It
# prevents* the false stop on a message sent a third time after two refused connections, the one send that
# was delivered.
#
# ### Failures one level down, and secrets in a success
#
# HTTP 200 can carry a failure deeper than `success: false`: `{"response": {"ok": false, "error":
# {...}}}`, `{"data": {"status": "FAILED"}}`, GraphQL's `errors: [...]` with `data: null`. The rule
# (`taxonomy.business_failure`) reads one envelope deep at a time and never calls data a failure just
# because it has a `status` field: `{"job_id": "j1", "status": "FAILED"}` is a fact about a job.

# %%
for data in ({"response": {"ok": False, "error": {"code": "CARD_DECLINED"}}}, {"data": {"status": "FAILED"}},
             {"errors": [{"message": "Order not found"}], "data": None}, {"job_id": "j1", "status": "FAILED"}):
    failure = taxonomy.business_failure(data)
    print(f"{json.dumps(data):70} -> {'failure ' + str(failure.error_code or '') if failure else 'data'}")

# %% [markdown]
# A *successful* result can hold what the model must not read: an API key in a config, a password in
# a database URL, a stack trace in a warning, an internal host. The data is the answer, so it cannot be
# dropped as an error's text is; the executor masks the credentials (the same patterns the traces use,
# reference/core/redact.py), replaces the trace and the internal host or path, and counts each in the
# ledger (`episode.ledger.redactions`).

# %%
episode = Episode.from_scenario(find("secret-in-success"))
res = guarded_loop(episode, 4, Parts(executor=ResilientExecutor.for_episode(episode)))
print(next(m.content for m in res.messages if isinstance(m, ToolMessage)))
print(episode.ledger.redactions)

# %% [markdown]
# ## 5. Malformed calls, with native function calling
#
# Lesson 1 (section 2) showed the text-parsed version of this failure: a parser that expects one
# format, a model that writes another, and a loop that answers "invalid format, try again" until the
# step limit. Native function calling removes the parsing layer: the tool name and the arguments come
# in their own fields of the API response (OpenAI sends the arguments as a JSON string, Anthropic's
# `tool_use` block as an `input` object), meant to fit the tool's JSON Schema (`parameters`). What can
# still go wrong is the *content*: a wrong name, broken JSON, arguments that do not fit the schema.
# With a real validator those become precise messages, and the executor counts them:

# %%
for name in ("schema-mismatch", "malformed-calls"):
    _, executor, result = fixed_runs[name]
    first_error = json.loads(next(m.content for m in result.messages if isinstance(m, ToolMessage) and m.is_error))
    print(f"{name}: {result.stop_reason.value} after {result.model_calls} model calls; tool attempts "
          f"{attempts(result)}; first error: {first_error['message'][:110]}")
plain = {name: play(name, lambda ep: PlainExecutor())[2] for name in ("schema-mismatch", "malformed-calls")}
stubborn, listening = fixed_runs["schema-mismatch"][2], fixed_runs["malformed-calls"][2]
display(Markdown(f"""
`schema-mismatch` is the parser-mismatch loop in native form: a model that keeps sending `location` and `day`
for `city` and `date`. Without validation, the call reaches the tool, which answers "No result", and the
model retries until the step limit ({plain['schema-mismatch'].model_calls} model calls with the lesson-1 executor). With it,
the model is told which arguments are missing and unknown, and when it sends the same rejected call a
third time the run stops (`{stubborn.stop_reason.value}`, {stubborn.model_calls} calls). A model that listens, as in
`malformed-calls`, fixes the name, the JSON and the date in turn and answers ({listening.model_calls} calls;
`{plain['malformed-calls'].stop_reason.value}` after {plain['malformed-calls'].model_calls} without schema validation, because the numeric date reaches
the tool and comes back as "No result").
"""))

# %% [markdown]
# ## 6. Test it
#
# The property that matters most is checked over every lesson-5 scenario: nothing internal reaches
# anything the model sees, whether tool results in the history or whole request bodies. It fails for the
# naive executor and holds for the fixed one:

# %%
def leaks_in(runs: dict) -> dict:
    found = {}
    for name, (episode, _, result) in runs.items():
        texts = [json.dumps(r.wire_body) for r in episode.scripted.requests]
        texts += [m.content for m in result.messages if isinstance(m, ToolMessage)]
        hits = sorted({n for n in NEEDLES for t in texts if n in t})
        if hits:
            found[name] = hits
    return found


naive_leaks, fixed_leaks = leaks_in(naive_runs), leaks_in(fixed_runs)
assert naive_leaks and not fixed_leaks
print(f"naive executor leaks in: {sorted(naive_leaks)}; fixed executor leaks in: {sorted(fixed_leaks) or 'none'}")
assert all(all(c.ok for c in evaluate(find(n), fixed_runs[n][2])) for n in LESSON5)
print(f"all {len(LESSON5)} lesson-5 scenarios meet their expect blocks with the resilient executor")

# %% [markdown]
# ## 7. The reference solution, graded
#
# The reference solution, loaded from its file and run by the grader the tests use, on a tool that
# heals after two timeouts and on one whose exception is full of secrets (`load_exercise("ex05", "exercises")` loads yours):

# %%
from reference.sandbox.grading import run_candidate

solution = load_exercise("ex05")  # load_exercise("ex05", "exercises"): yours


def solution_loop(episode, max_steps):
    return guarded_loop(episode, max_steps, Parts(executor=solution.make_executor(episode)))


for name in ("flaky-timeout", "exception-secret"):
    attempt = run_candidate(solution_loop, name)
    shown_errors = [json.loads(m.content) for m in attempt.result.messages if isinstance(m, ToolMessage) and m.is_error]
    print(attempt.story())
    print(f"    tool attempts {attempts(attempt.result)}; errors the model saw: {len(shown_errors)}"
          + (f"; the first: {shown_errors[0]['message']}" if shown_errors else ""))
    print(f"    answer: {attempt.result.answer!r}")

# %% [markdown]
# ## 8. The interview
#
# **"A tool throws. Can you feed the stack trace back to the model?"** A strong answer contains:
#
# 1. **No, for three reasons**: it costs tokens (and is re-sent on every later step), the model cannot
#    act on it, and it leaks internals (paths, SQL, hosts, credentials) to the model, the provider's
#    logs and possibly the user.
# 2. The exception is caught in the executor and **never escapes the loop**; the full trace goes to
#    your logs and trace (with the call id), redacted, not into the prompt.
# 3. The model gets a **structured, actionable** result: `ok: false`, an `error_type`, whether to
#    retry, which argument was wrong, what was expected, an example, another tool if there is one.
# 4. Text a tool wrote for its caller passes only through a filter that **fails closed**.
#
# **"Which errors do you retry, and how?"** A strong answer contains:
#
# 1. One table decides, by HTTP status and exception class: timeouts, connection errors, 429 and 5xx
#    are retryable; 400/422, 401/403, 404, business rules and bugs are not (retrying them wastes time
#    and, on writes, can do harm).
# 2. Retry **in code**, not by the model: exponential backoff with **jitter**, **Retry-After**
#    honoured, capped by attempts and by the run's **time budget**. A retry that succeeds is invisible
#    to the model; the trace still records every attempt.
# 3. Retry only what is safe to repeat: reads, or writes with an idempotency key (a unique id the
#    client sends with the request, so that the service carries out a repeated write only once).
# 4. HTTP 200 is not success: a body with `success: false` goes down the error branch.
# 5. Knows the classic bug: a retry decorator around a function that catches its own exceptions.
#
# **"A tool is down. What does your agent do?"** A strong answer contains:
#
# 1. A **circuit breaker per tool**: after N failed calls in a row (each already retried), the tool
#    is withdrawn from the tool list for the rest of the run and the model is told why.
# 2. Only the tool's faults count (timeouts, 5xx, crashes); a bad argument does not open the circuit.
# 3. When every tool the task needs is gone, the run **stops** with its own stop reason and a
#    degraded answer (what was done, what is missing, what to do next); it does not spend the
#    remaining steps on a dead tool.
# 4. In production, a breaker shared across runs, with a half-open trial request after a cool-down,
#    protects the service itself.

# %%
terse, actionable = naive_runs["bad-date-format"][2], fixed_runs["bad-date-format"][2]
display(Markdown(f"""
**"How would you know that your error messages are actionable?"** A strong answer contains:

1. Treat messages as a product and **evaluate** them: a fixed set of failure cases (like this kit's
   scenarios), replayed against the real model, for each message template.
2. Measure **self-healing**: after an error, is the model's next call valid, does the run complete,
   how many extra model calls and tokens did the error cost, how often is the *same* rejected call
   sent again.
3. Compare templates on those numbers. Here, with scripted models, the API's terse "Invalid value for
   'date'." against an actionable message is the difference between `{terse.stop_reason.value}` after
   {terse.model_calls} model calls and an answer on call {actionable.model_calls}; with a real model it is a
   rate you measure, not a figure you quote.
4. Keep the failing cases as regression tests per `error_type`.

**Bonus: "ReAct with text parsing or native function calling?"** Native function calling: no parsing
layer, arguments in their own fields, checked against the tool's schema by a real validator; parsed
text is for models or serving stacks without tool calling. A malformed call is still a loop risk, so it
gets a precise error and is counted like any other repeat.
"""))
