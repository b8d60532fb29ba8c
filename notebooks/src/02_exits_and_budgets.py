# ---
# # Lesson 2 source. Edit this file, then rebuild and re-run the notebook:
# #     python notebooks/build.py 02
# # Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# # in prose is computed by a cell (Markdown built from f-strings): never type a measured number.
# ---

# %% [markdown]
# # Lesson 2: exits and budgets
#
# *About 30 minutes to read and run; the exercise takes about 35 more.* (Reading estimated
# from the text at 150 words a minute, the code at 30 lines a minute and the outputs skimmed; every cell
# runs in seconds. docs/workshop.md says how the exercise times were estimated, and has the agendas.)
#
# `max_steps` is a fuse, not a brake. It bounds how many requests a run makes, not what each of them
# reads, costs or waits for: steps are not of equal size, and section 3 measures by how much they
# differ. This lesson:
#
# 1. **breaks** the lesson-1 loop on four scenarios where the step limit is the wrong exit
#    (a growing context, an expensive model, slow tools, and the 40-step incident);
# 2. **observes** where the tokens, the dollars and the seconds go, step by step;
# 3. **fixes** it with a budget that watches steps, tokens, time and cost at once, and is checked
#    *before* each request and each tool run, so that the run does not overshoot by a whole step;
# 4. **tests** the fix against the scenarios' expectations;
# 5. chooses `max_steps` and the budgets **from data**: a fleet of hundreds of seeded runs, the P95 of
#    the successful ones plus a margin, the trade-off between completion and spend, and per-intent
#    tiers.
#
# Offline and deterministic: a scripted model, fake tools, a simulated clock.

# %% [markdown]
# ## Setup

# %%
from __future__ import annotations

import inspect
import json
from collections import Counter

from kit import load_exercise  # notebooks/kit.py: puts the repository root on sys.path; loads solutions/ and exercises/

import logging

logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # no font-cache notice on a fresh machine
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from reference import Episode, find
from reference.parts.budget import KINDS, TIERS, RunBudget, Spend
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.loops.react import react_loop
from reference.cli.table import print_table as table
from reference.runs.runner import evaluate

# %% [markdown]
# ## 1. Six kinds of exit
#
# Every run of the kit ends with one `StopReason`, and every stop reason belongs to one kind of exit
# (docs/glossary.md has the kit's names for them, used in every lesson and on the interview card):
#
# - **normal**: the model answered without calling a tool;
# - **resource**: a limit would be crossed: steps, tokens, time or money, whichever comes first;
# - **guard**: the loop saw the model going round in circles after a warning, or every tool it needs was
#   withdrawn after failures (lessons 3, 5);
# - **no progress**: steps went by without any new information (lesson 3);
# - **user**: the user pressed stop (lesson 4);
# - **error**: the run could not go on at all (the provider kept failing).
#
# An interviewer groups the guard, no-progress and error kinds as **abnormal** exits, and asks
# for at least three kinds: normal, resource, abnormal. The lesson-1 loop has the first exit and one
# resource, steps. This lesson adds the other three resources.

# %%
for kind, reasons in KINDS.items():
    print(f"{kind:<12} {', '.join(r.value for r in reasons)}")

# %% [markdown]
# ## 2. Break it: the lesson-1 loop on four budget scenarios
#
# Each scenario sets its own limits in its `limits` block (what the deployment or the user allows):

# %%
BUDGET_SCENARIOS = ["token-blowup", "cost-blowup", "slow-tools", "incident-40-step"]
report_latency = find("slow-tools").tools[0].latency_seconds
display(Markdown(f"""
- `token-blowup`: a model paging through logs, each page bigger than the last, all kept in context;
- `cost-blowup`: a premium model reading one huge ticket export after another;
- `slow-tools`: regional reports that take {report_latency:g} simulated seconds each, against a
  {find('slow-tools').limits.max_seconds:g}-second budget;
- `incident-40-step`: a troubleshooting request on a deployment with a {find('incident-40-step').limits.max_steps}-step
  cap and no budget.

The lesson-1 loop only knows `max_steps`:
"""))

# %%
naive = {name: react_loop(Episode.from_scenario(find(name)), max_steps=find(name).limits.max_steps)
         for name in BUDGET_SCENARIOS}


def row(name, result) -> dict:
    limits = find(name).limits
    return {"scenario": name, "stop reason": result.stop_reason.value, "calls": result.model_calls,
            "tokens": result.usage.total_tokens, "max_run_tokens": limits.max_run_tokens, "cost $": result.cost_usd,
            "max_cost $": limits.max_cost_usd, "sim s": round(result.sim_seconds, 1), "max s": limits.max_seconds}


table([row(n, r) for n, r in naive.items()],
      ["scenario", "stop reason", "calls", "tokens", "max_run_tokens", "cost $", "max_cost $", "sim s", "max s"])

# %%
tb, cb, st, inc = (naive[n] for n in BUDGET_SCENARIOS)
display(Markdown(f"""
Each run ended on the step limit or with a late answer. Three broke a budget they never looked at,
and the fourth had no budget to break:

- `token-blowup` read **{tb.usage.total_tokens:,} tokens** against a budget of {find('token-blowup').limits.max_run_tokens:,}
  ({tb.usage.total_tokens / find('token-blowup').limits.max_run_tokens:.1f} times over) in {tb.model_calls} steps;
- `cost-blowup` cost **\\${cb.cost_usd:.2f}** against \\${find('cost-blowup').limits.max_cost_usd:.2f}, in {cb.model_calls} steps;
- `slow-tools` answered after **{st.sim_seconds:.0f} simulated seconds** against {find('slow-tools').limits.max_seconds:.0f}:
  an answer that arrives after the user gave up does not count;
- `incident-40-step` made **{inc.model_calls} model calls**, read {inc.usage.total_tokens:,} tokens and cost
  \\${inc.cost_usd:.2f}, and the user got `{inc.answer!r}` as the answer.
"""))

# %% [markdown]
# ## 3. Observe: where the tokens go
#
# Every request sends the whole history again. In `token-blowup` each tool result is larger than the
# one before, and all of them stay in the context. The output (the model's tool calls) is a rounding
# error; the input is the bill.

# %%
steps = tb.steps
cumulative, total = [], 0
for s in steps:
    total += s.input_tokens + s.output_tokens
    cumulative.append(total)
table([{"step": s.step, "input tokens": s.input_tokens, "output tokens": s.output_tokens, "total so far": c}
       for s, c in zip(steps, cumulative)], ["step", "input tokens", "output tokens", "total so far"])

# %%
growth = [b.input_tokens - a.input_tokens for a, b in zip(steps, steps[1:])]  # what each step added
half = len(steps) // 2
display(Markdown(f"""
Each request adds the previous result to the history, and each result is bigger than the last: request 2
added {growth[0]:,} tokens, request {len(steps)} added {growth[-1]:,}. So the input of *one* request grows
roughly with the square of the step number, and the total, a sum of those, roughly with its cube. Doubling
the steps from {half} to {len(steps)} multiplied the input of the last request by
{steps[-1].input_tokens / steps[half - 1].input_tokens:.1f} (2² = 4) and the total by
{cumulative[-1] / cumulative[half - 1]:.1f} (2³ = 8).
"""))

# %%
limit = find("token-blowup").limits.max_run_tokens
fig, ax = plt.subplots(figsize=(8, 3.6))
ax.bar([s.step for s in steps], [s.input_tokens for s in steps], color="#8fb3d9", label="input tokens of the request")
ax.plot([s.step for s in steps], cumulative, color="#c0392b", marker="o", label="tokens used so far")
ax.axhline(limit, color="black", linestyle="--", linewidth=1, label=f"max_run_tokens = {limit:,}")
ax.set_xlabel("step (one model request)")
ax.set_ylabel("tokens")
ax.set_title("token-blowup with the lesson-1 loop")
ax.legend(loc="upper left")
plt.tight_layout()
plt.show()

# %%
first_over = next(i for i, c in enumerate(cumulative) if c > limit)
written = tb.usage.output_tokens
display(Markdown(f"""
The budget is crossed by **request {first_over + 1}**: {cumulative[first_over - 1]:,} tokens were used before
it, and that one request alone read {steps[first_over].input_tokens:,}. The model wrote only {written:,} of the
{tb.usage.total_tokens:,} tokens: a budget that counts only what the model writes would never trip. And the request that
crosses the line is the largest so far: a check *after* it comes one expensive step too late.
"""))

# %% [markdown]
# The incident has the same shape in dollars. Its log searches return more each time, and the premium
# model bills every request for the whole history:

# %%
pricing = Episode.from_scenario(find("incident-40-step")).ledger.pricing
spend, so_far = [], 0.0
for s in inc.steps:
    so_far += (s.input_tokens * pricing.input_per_mtok + s.output_tokens * pricing.output_per_mtok) / 1e6
    spend.append(so_far)
for k in (5, 10, 20, 30, 40, 50):
    print(f"after {k:>2} steps: ${spend[k - 1]:.4f}, request {k} read {inc.steps[k - 1].input_tokens:,} input tokens")

# %% [markdown]
# ## 4. Exercise: a budget checked before each request
#
# Section 3 showed that a step limit does not bound what a run reads, costs or waits for. Write the
# budget that does: a part the loop asks before every model request and every tool run, which stops
# the run when the next one *would* cross a limit on tokens, cost, time or steps, and names the limit
# in its detail. The task and what you are given are in `exercises/ex02_budget.py`; write it there,
# then check it from the repository root:
#
# ```
# loopkit check ex02        # runs tests/test_ex02_budget.py against your file
# loopkit check --watch ex02
# loopkit hint ex02         # hints escalate: loopkit hint ex02 2, 3, ...
# ```
#
# The tests run it on the budget scenarios of section 2 and on the incident (section 8); they also catch the four classic wrong
# answers: a step count as the only budget, a check after the request instead of before, a clock that
# leaves out tool time, and a token count that leaves out the input. Write it before you read on: the
# next section is the answer. The first hint:

# %%
from reference.cli import main as loopkit

exit_code = loopkit(["hint", "ex02", "1"])  # what `loopkit hint ex02 1` prints in a shell

# %% [markdown]
# ## 5. Fix it: a budget checked before each request
#
# `reference/parts/budget.py` has `RunBudget`, the `budget` part of the guarded loop
# (`reference/loops/guarded.py`), which asks it two questions:
#
# - `before_request(episode, messages, step)`: would the next request cross a limit? The request is
#   estimated *before* it is sent: its input tokens are counted with the kit's estimator (about four
#   characters per token) over the whole request in its wire format, messages and tool schemas, plus
#   a reserve for the answer; its cost follows from the price list; its time is the slowest earlier
#   request's. That estimator is exactly what the *scripted* model bills, so here the arithmetic is
#   exact. Against a real API it is only an approximation: count with the provider's tokenizer or its
#   token-counting endpoint, and keep a margin.
# - `before_tool(episode, call)`: would this tool run cross the time budget, going by its earlier runs?
#   A tool's *first* call cannot be refused this way: there is no earlier run to estimate it from.
#
# Either answer is `None` (go on) or a `Stop(reason, detail)` from `reference/loops/hooks.py`: one frozen
# value that every part returns and the degraded output reads (why, in one line; whether the failure may
# heal; how long to wait). The hooks are the whole contract between the loop and a part: a budget
# subclasses the `Budget` protocol, and gets `headroom(episode)`, what is left of each limit for the
# trace, with a default it can override. *It prevents* a quieter false stop: a part that returned a
# bare tuple the loop misread, or a method the loop looked up by name and silently skipped.
#
# Spending is read from the harness's ledger and clock: the budget keeps no second set of books. The
# core of it:

# %%
print(inspect.getsource(RunBudget.before_request))

# %% [markdown]
# Switch on the budget, and nothing else, with each scenario's own limits:

# %%
def with_budget(name: str, budget_of=lambda ep: RunBudget.from_limits(ep.limits)):
    episode = Episode.from_scenario(find(name))
    return guarded_loop(episode, episode.limits.max_steps, Parts(budget=budget_of(episode)))


fixed = {name: with_budget(name) for name in BUDGET_SCENARIOS}
table([row(n, r) for n, r in fixed.items()],
      ["scenario", "stop reason", "calls", "tokens", "max_run_tokens", "cost $", "max_cost $", "sim s", "max s"])
print()
for name, result in fixed.items():
    print(f"{name:<17} {result.detail}")

# %% [markdown]
# Each budget scenario now stops on its own budget, below the limit, and the detail says which limit
# closed and by how much. The incident still runs to its 50 steps: its deployment set no budget at
# all. Section 8 comes back to it.
#
# ### Why before, and not after
#
# The classic whiteboard version checks `if budget.exhausted(): stop` at the top of the loop, against
# what was already spent. Here it is, next to the real one:

# %%
class CheckedAfter(RunBudget):
    """The whiteboard budget: compares what was already spent with the limit, never the next request."""

    def next_request(self, episode, messages):
        return Spend()  # the flaw: the next request "costs nothing"

    def before_tool(self, episode, call):
        return None


def step_spend(result, episode, meter: str) -> list[float]:
    """What each step of a run spent on one meter (its tool runs included, for seconds)."""
    if meter == "tokens":
        return [s.input_tokens + s.output_tokens for s in result.steps]
    if meter == "cost":
        return [episode.ledger.pricing.cost(s) for s in result.steps]  # a step has input and output tokens
    ends = [s.started for s in result.steps[1:]] + [result.sim_seconds]
    return [end - s.started for s, end in zip(result.steps, ends)]


overshoot = {}
for name, meter, fmt in (("token-blowup", "tokens", "{:,.0f} tokens"), ("cost-blowup", "cost", "${:.4f}"),
                         ("slow-tools", "seconds", "{:.1f} s")):
    episode = Episode.from_scenario(find(name))
    late = guarded_loop(episode, episode.limits.max_steps, Parts(budget=CheckedAfter.from_limits(episode.limits)))
    good = fixed[name]
    limits = find(name).limits
    after, before, cap = {"tokens": (late.usage.total_tokens, good.usage.total_tokens, limits.max_run_tokens),
                          "cost": (late.cost_usd, good.cost_usd, limits.max_cost_usd),
                          "seconds": (late.sim_seconds, good.sim_seconds, limits.max_seconds)}[meter]
    crossing = step_spend(late, episode, meter)[-1]  # the step after which the check finally fired
    overshoot[name] = (fmt.format(after - cap), fmt.format(crossing))
    print(f"{name:<13} checked after: {fmt.format(after):>14} ({after / cap:.0%} of the limit)   "
          f"checked before: {fmt.format(before):>14} ({before / cap:.0%})")

# %%
slow_limit = find("slow-tools").limits.max_seconds
overshoot_lines = "\n".join(f"- `{name}`: {over} over the limit; the step that crossed it cost {step}"
                             for name, (over, step) in overshoot.items()).replace("$", "\\$")  # $ is math in Markdown
display(Markdown(f"""
Checked after, every run overshoots, by whatever the step that crossed the line happened to cost:

{overshoot_lines}

Checked before, with the next request in mind, none does. In `slow-tools` the difference is the tool:
the third {report_latency:g}-second report is refused before it starts, because the reports before it
took that long and the {slow_limit:g}-second budget has no room for another. The loop answers the refused
call (the protocol needs a result for every call) and stops:
"""))

# %%
slow = fixed["slow-tools"]
for s in slow.steps:
    for t in s.tools:
        print(f"step {s.step}: {t.name}({json.dumps(t.arguments)}) ran from {t.started:.1f} s for {t.seconds:.1f} s")
print("refused:", slow.messages[-1].content)

# %% [markdown]
# ## 6. Test it
#
# Every scenario of the catalogue carries an `expect` block: what a well-designed loop does with it.
# With the budget alone, the three budget scenarios now meet theirs, and so does the happy path
# (a budget must not change a run that stays inside its limits):

# %%
for name in ("token-blowup", "cost-blowup", "slow-tools", "happy-path"):
    checks = evaluate(find(name), with_budget(name))
    print(f"{name:<13} {'PASS' if all(c.ok for c in checks) else 'FAIL'}  " + "; ".join(c.detail for c in checks[:2]))

# %% [markdown]
# ## 7. Choosing max_steps from data
#
# A step limit nobody measured is a guess, and "10, because that is the default" is the guess an
# interviewer hears most. The kit measures it the way a production team would: replay many runs of
# one kind of task, keep the runs that ended with a good answer, and read the limit off the
# distribution of their step counts: a high quantile (the P95), plus some headroom. Each kind of task
# gets its own measurement, because a quick lookup and a troubleshooting session need very different
# limits (the two fleets below show by how much). And a measured P95 that looks high for the task is a
# design signal before it is a setting: the work may be cut into too many small tool calls, or the
# task may not need an agent at all.
#
# The kit's **fleet** (`reference/runs/fleet.py`) does this on two task families,
# `fleet-lookup` (two tools, three model calls when all goes well) and `fleet-troubleshoot` (five tools,
# six calls). Their models are seeded and stochastic: after a tool call the model repeats it with
# probability `policy.repeat_last_call`, and with probability `policy.stuck` (drawn once per run) a run
# never concludes. These rates are the kit's own synthetic settings, not measurements of any real model.
# One seed is one run; the runs use the lesson-1 loop with a generous cap.

# %%
from reference.runs.fleet import CAP, MARGIN, QUANTILE, fit_tiers

tiers = fit_tiers()  # both families, with their recommendations and a check of each tier
fleet = tiers["troubleshoot"].fleet
rec = tiers["troubleshoot"].recommendation
print(f"{fleet.scenario.name}: {len(fleet.runs)} runs with max_steps={CAP}, {len(fleet.successes)} answered")
print("steps of the successful runs:", dict(sorted(fleet.step_counts().items())))
print("stop reasons of the others:  ", dict(Counter(r.stop_reason for r in fleet.runs if not r.completed)))

# %%
counts = fleet.step_counts()
fig, ax = plt.subplots(figsize=(8, 3.6))
ax.bar(list(counts), list(counts.values()), color="#8fb3d9", label="successful runs")
ax.axvline(rec.p95_steps, color="#c0392b", linestyle="--", label=f"P95 = {rec.p95_steps} steps")
ax.axvline(rec.max_steps + 0.5, color="black", linewidth=2, label=f"P95 + margin: max_steps = {rec.max_steps}")
ax.set_xlabel("model calls to the answer")
ax.set_ylabel("runs")
ax.set_xticks(range(min(counts) - 1, rec.max_steps + 3))
ax.set_title(f"{fleet.scenario.name}: steps of the successful runs ({len(fleet.successes)} of {len(fleet.runs)})")
ax.legend()
plt.tight_layout()
plt.show()

# %%
display(Markdown(f"""
The successful runs needed between {min(counts)} and {max(counts)} model calls; **P95 = {rec.p95_steps}**.
The quantile is taken by *nearest rank*: sort the successful runs' step counts and take the one at
position ⌈{QUANTILE:g} × n⌉, so the P95 is a step count some run really needed (no interpolation), and
{QUANTILE:.0%} of the successful runs needed at most that. With a margin of {MARGIN:.0%}
(at least one step), the recommendation is **max_steps = {rec.max_steps}**.
The same P95-plus-margin rule on the successful runs' spend (with room for the budget's output reserve)
gives the other limits:
{rec.max_run_tokens:,} tokens, {rec.max_seconds:g} simulated seconds, \\${rec.max_cost_usd:g}.
"""))

# %% [markdown]
# ### The trade-off: completion against spend
#
# A lower cap cuts good runs short; a higher one lets the runs that never conclude burn steps (and
# ever larger requests) until they hit it. With the lesson-1 loop a lower cap changes nothing before
# the cut, so every cap is read off the same runs:

# %%
curve = fleet.tradeoff()
table([{"max_steps": p.max_steps, "completed": f"{p.completion_rate:.1%}", "fleet spend $": p.spend_usd,
        "spent on failures $": p.wasted_usd, "share wasted": f"{p.wasted_share:.0%}"}
       for p in curve if p.max_steps in (4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20, 30, 40)],
      ["max_steps", "completed", "fleet spend $", "spent on failures $", "share wasted"])

# %%
fig, ax = plt.subplots(figsize=(8, 3.8))
xs = [p.max_steps for p in curve]
ax.plot(xs, [p.completion_rate for p in curve], color="#2e86c1", marker=".", label="completion rate")
ax.set_xlabel("max_steps")
ax.set_ylabel("share of runs answered", color="#2e86c1")
ax.axvline(rec.max_steps, color="black", linewidth=1, linestyle="--")
ax.text(rec.max_steps + 0.4, 0.1, f"P95 + margin = {rec.max_steps}")
ax2 = ax.twinx()
ax2.plot(xs, [p.spend_usd for p in curve], color="#c0392b", label="fleet spend ($)")
ax2.plot(xs, [p.wasted_usd for p in curve], color="#c0392b", linestyle=":", label="spent on runs with no answer ($)")
ax2.set_ylabel("simulated spend, $", color="#c0392b")
lines = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
ax.legend(lines, [h.get_label() for h in lines], loc="center right")
ax.set_title(f"{fleet.scenario.name}: what each max_steps buys and costs")
plt.tight_layout()
plt.show()

# %%
at = next(p for p in curve if p.max_steps == rec.max_steps)
top = curve[-1]
extra_answers = round((top.completion_rate - at.completion_rate) * len(fleet.runs))
display(Markdown(f"""
At max_steps = {rec.max_steps} the fleet answers **{at.completion_rate:.1%}** of its runs for \\${at.spend_usd:.2f};
at {top.max_steps} it answers {top.completion_rate:.1%} for **\\${top.spend_usd:.2f}**. The extra
\\${top.spend_usd - at.spend_usd:.2f} buys {extra_answers or "no"} more answer{"" if extra_answers == 1 else "s"}:
it goes to the runs that never conclude, whose spend on failures grows from
\\${at.wasted_usd:.2f} to \\${top.wasted_usd:.2f}. Below the P95 the curve falls off a cliff the other way:
good runs are cut one or two steps before their answer, and everything they spent is wasted.
"""))

# %% [markdown]
# ### Per-intent tiers
#
# The same method on each task family gives one tier per intent. `reference/parts/budget.py` keeps them in
# `TIERS` (`policy_for(intent)`), and the kit's tests check that they still match what the fleets
# recommend. Each tier is then checked on its fleet again, with all four limits on, through the
# guarded loop and `RunBudget`:

# %%
def same_limits(a, b) -> bool:
    return (a.max_steps, a.max_run_tokens, a.max_seconds, a.max_cost_usd) == (b.max_steps, b.max_run_tokens, b.max_seconds,
                                                                          b.max_cost_usd)


rows = []
for intent, report in tiers.items():
    r, check = report.recommendation, report.check
    rows.append({"intent": intent, "family": r.scenario, "P95 steps": r.p95_steps, "max_steps": r.max_steps,
                 "max_run_tokens": r.max_run_tokens, "max s": r.max_seconds, "max $": r.max_cost_usd,
                 "answered": f"{check.completion_rate:.1%}", "worst run $": check.max_run_cost_usd,
                 "over a limit": check.overshoots, "in TIERS": same_limits(TIERS[intent], r.policy())})
table(rows, ["intent", "family", "P95 steps", "max_steps", "max_run_tokens", "max s", "max $", "answered",
             "worst run $", "over a limit", "in TIERS"])
general = TIERS["general"]
print(f"\ngeneral (no known family, not fitted): max_steps {general.max_steps}, max_run_tokens {general.max_run_tokens:,}, "
      f"max s {general.max_seconds:g}, max $ {general.max_cost_usd:g}")

# %%
for intent, report in tiers.items():
    reasons = report.check.stop_reasons
    print(f"{intent:<13} stop reasons under the tier: "
          + ", ".join(f"{reason} {n / report.check.runs:.1%}" for reason, n in reasons.items()))

# %%
lookup = tiers["lookup"]
steps_only = next(p for p in lookup.fleet.tradeoff() if p.max_steps == lookup.recommendation.max_steps)
display(Markdown(f"""
The two families differ as expected: a lookup's P95 is {lookup.recommendation.p95_steps} model calls, a
troubleshooting session's {rec.p95_steps}. One limit for both would be either too tight for the second
or {rec.max_steps - lookup.recommendation.max_steps} steps too loose for the first.

With max_steps = {lookup.recommendation.max_steps} alone, {steps_only.completion_rate:.1%} of the lookup fleet
would be answered; with the whole tier, {lookup.check.completion_rate:.1%}. For the slowest lookups the token
budget trips before the step limit: the step margin is rounded up to a whole step, while {MARGIN:.0%} of a
small token P95 is less than one more step's worth of tokens. Whether that is the right price is a product
decision; the fleet shows what it is, and that no run ends over a limit.
"""))

# %% [markdown]
# Those shares are the **trigger rates** of each limit, the health metric to watch in production. A
# rising max_steps or budget trigger rate means either the limit was cut too deep or the tasks of that
# intent are getting harder (or were never a good fit for an agent loop); either way the data, not a
# hunch, says which.
#
# A scenario states its intent in its `intent` field. `RunBudget.for_episode(episode)` combines the
# scenario's `limits` (the deployment's, or the user's) with its intent's tier, on one principle:
# **the user's limits are the contract; a fitted tier fills only the limits the user left unset.**
# The step limit if the user wrote none; the budget (tokens, seconds and dollars, one amount in three
# units) if the user wrote none of it; and nothing at all when the user allowed more steps than the
# tier was fitted on, because a tier describes the family's usual run and the user has just said that
# this one is not usual. The false stop it prevents: a legitimate 25-step task, allowed 30 steps by
# its user, cut at the troubleshoot tier's 11 steps, or at its 11,000-token budget, which a 25-step task
# of small lookups crosses at step 16 (`long_task` in tests/test_budget.py: 28,426 tokens in all). A
# limit set by neither side is not enforced; the detail names which side set the limit that tripped.

# %%
for name in ("incident-40-step", "token-blowup", "slow-tools", "happy-path"):
    episode = Episode.from_scenario(find(name))
    budget = RunBudget.for_episode(episode)
    print(f"{name} (intent {episode.scenario.intent}): {budget.describe()}")
    print(f"    set by: {budget.sources}")

# %% [markdown]
# ## 8. The 40-step incident
#
# The pressure version of this topic: *one request ran for dozens of steps, spent real money, and the
# user still got no answer. What do you do today, and what do you change so that it cannot happen
# again?* The kit's `incident-40-step` is that request. Keep three phases apart, in this order, because
# each needs the one before it:
#
# 1. **Contain** (minutes): make the next request like it cheap, before anyone knows why it looped.
# 2. **Diagnose** (hours): read the trace and name the shape of the loop.
# 3. **Prevent** (days): turn what was learned into limits, alerts and tests.
#
# **Contain.** The levers that need no root cause:
#
# - hard limits at conservative values where there were none: a step cap and a per-request token or
#   cost budget (this deployment had a step cap and no budget at all). Changing the deployment's limits
#   is a decision an operator makes and owns: the budget never overrides a limit someone set, so the
#   50 steps stand until the operator replaces them (above, `for_episode` keeps them);
# - take the intent off the agent for now: serve it with a fixed pipeline, or send it to a person, so
#   that users are still served while the agent is fixed;
# - rate limits per user and per session: a user who retries a failing request multiplies the bill.
#
# The first lever: the operator runs the intent under the troubleshoot tier fitted in section 7:

# %%
incident_fixed = with_budget("incident-40-step",
                             lambda ep: RunBudget.from_policy(TIERS["troubleshoot"], "troubleshoot tier, by the operator"))
print(f"before: {inc.model_calls} model calls, {inc.usage.total_tokens:,} tokens, ${inc.cost_usd:.4f}, "
      f"stop reason {inc.stop_reason.value}")
print(f"after:  {incident_fixed.model_calls} model calls, {incident_fixed.usage.total_tokens:,} tokens, "
      f"${incident_fixed.cost_usd:.4f}, stop reason {incident_fixed.stop_reason.value}")
print(f"        {incident_fixed.detail}")
checks = evaluate(find("incident-40-step"), incident_fixed)
print("expect:", "; ".join(f"{'PASS' if c.ok else 'FAIL'} {c.detail}" for c in checks))

# %%
display(Markdown(f"""
The tier cuts the bill from \\${inc.cost_usd:.2f} to \\${incident_fixed.cost_usd:.4f}
({inc.cost_usd / incident_fixed.cost_usd:.0f} times less) and stops after {incident_fixed.model_calls} model calls
instead of {inc.model_calls}. That is containment, not a fix: the run still stops for lack of budget and the
user still gets no answer. Lesson 3 runs its loop guard on this same incident, to stop it on the loop
itself rather than on the bill, and lesson 4 turns whichever stop comes first into a useful answer.
"""))

# %% [markdown]
# **Diagnose.** The trace of a looping agent usually has one of three shapes, and each has its own fix:
#
# | shape in the trace | what to change |
# |---|---|
# | the same call, again and again | catch the repeat by its normalised fingerprint (lesson 3) |
# | two tools taking turns, each apparently waiting for the other | find which should come first and make that order explicit |
# | a tool returning nothing useful while the model rewords its query | make an empty result say what to try next |
#
# The incident's trace:

# %%
calls = [(t.name, json.dumps(t.arguments, sort_keys=True)) for s in inc.steps for t in s.tools]
for (tool, args), n in Counter(calls).most_common(4):
    print(f"{n:>3} x {tool}({args})")
sequence = [t for t, _ in calls]
flips = sum(1 for a, b in zip(sequence, sequence[1:]) if a != b)
print(f"tool changes between consecutive calls: {flips} of {len(sequence) - 1}")
print("first calls:", " -> ".join(sequence[:9]))

# %%
top_call, top_n = Counter(calls).most_common(1)[0]
log_queries = Counter(args for tool, args in calls if tool == "search_logs")
display(Markdown(f"""
All three shapes at once: `{top_call[0]}` sent with the same arguments {top_n} times; the tool changed
at {flips} of the {len(sequence) - 1} transitions between consecutive calls (two tools taking turns);
and the log search reworded {len(log_queries)} ways, {sum(log_queries.values())} searches in all, while the
model never got to an answer.
"""))

# %% [markdown]
# **Prevent.**
#
# - Make a per-request budget mandatory for every intent, not only for the one that burned.
# - Alert on the signals that would have shown this early: how often each limit trips (its *trigger
#   rate*: the shares printed for the tiers in section 7), and the P99 of steps and of cost per
#   request.
# - Keep the request, with the stop it should get, as a regression case: a scenario file like
#   `incident-40-step.yaml` is exactly that.
# - If requests of this kind always take the same path, write the path as a fixed workflow and keep it
#   out of the agent.
# - Show the user progress and a way to cancel, rather than a long silent wait.
#
# After tightening, keep watching the trigger rate. A rise means the cut went too deep for the hard
# but legitimate requests, or this kind of task does not suit an agent loop; the fleet's figures, not
# opinions, tell the two apart.
#
# ## 9. The reference solution, graded
#
# The reference solution, `solutions/ex02_budget.py`, loaded straight from its file and run by the
# grader the tests use, with each scenario's own limits (`load_exercise("ex02", "exercises")` loads yours):

# %%
from reference.sandbox.grading import run_candidate

solution = load_exercise("ex02")  # load_exercise("ex02", "exercises"): yours


def budgeted_loop(episode, max_steps):
    return guarded_loop(episode, max_steps, Parts(budget=solution.Budget.from_limits(episode.limits)))


for name in ("token-blowup", "slow-tools"):
    attempt = run_candidate(budgeted_loop, name)
    print(attempt.story())
    print(f"    {attempt.result.detail}")

# %% [markdown]
# ## 10. The interview

# %%
lookup_rec = tiers["lookup"].recommendation
display(Markdown(f"""
**Questions this lesson prepares for, and what a strong answer contains** (figures from this notebook):

1. *How do you choose max_steps?*
   By measurement, per kind of task: replay a task family, keep its successful runs, take the P95 of
   their step counts and add headroom. Here that gave max_steps {lookup_rec.max_steps} for lookups
   (P95 {lookup_rec.p95_steps}) and {rec.max_steps} for troubleshooting (P95 {rec.p95_steps}), with a
   {MARGIN:.0%} margin. Then show the price of the choice: on the troubleshooting fleet a cap of
   {top.max_steps} instead of {rec.max_steps} bought {extra_answers or "no"} more
   answer{"" if extra_answers == 1 else "s"} for \\${top.spend_usd - at.spend_usd:.2f} more, spent on runs
   that never conclude. A P95 that is high for the task points at the design (too many small tools, or a
   task that wants a fixed workflow), not at a bigger cap.
2. *Is a step limit enough? What else stops the run?*
   No: steps are not of equal size. In `token-blowup` the first request read {steps[0].input_tokens:,}
   input tokens and the last {steps[-1].input_tokens:,}. Budgets for tokens (input included), time (tool
   time included) and money sit beside the step limit, and the first that would be crossed stops the
   run. They are checked *before* spending, against an estimate of the next request or tool run; checked
   after, `token-blowup` ended {overshoot['token-blowup'][0]} over its limit. Every run records its stop
   reason, and how often each one fires is a health metric.
3. *A request ran for dozens of steps, cost real money and answered nothing. What now?*
   Contain, then diagnose, then prevent. Contain with hard limits (the troubleshoot tier took this
   incident from \\${inc.cost_usd:.2f} to \\${incident_fixed.cost_usd:.4f}), by taking the intent off the
   agent for now, and with per-user rate limits. Diagnose by the trace's shape (repeats, two tools
   taking turns, empty results being reworded), each with its own fix. Prevent with a mandatory
   per-request budget, alerts on trigger rates and on the P99 of steps and cost, the case in the
   regression set, and a workflow where the path is fixed; then watch the trigger rate to see whether
   the cut went too deep.

**Weak answers the interviewer hears:** a number with no origin ("we use 10"); a step cap as the only
gate; a budget compared with what was already spent, after the request; "lower max_steps" as the cure
for a looping model (it cuts the hard legitimate runs short and leaves the loop in place); a root-cause
analysis started while the spending goes on.
"""))
