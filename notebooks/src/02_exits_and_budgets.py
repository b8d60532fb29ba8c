# Lesson 2 source. Edit this file, then rebuild and re-run the notebook:
#     python notebooks/build.py 02
# Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# in prose is computed by a cell (Markdown built from f-strings): never type a measured number.

# %% [markdown]
# # Lesson 2: exits and budgets
#
# `max_steps` is a fuse, not a brake. It bounds how many requests a run makes, not what they cost:
# one step can read a few hundred tokens or tens of thousands, and a slow tool can hold a step for
# twenty seconds. This lesson:
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
import sys
from collections import Counter
from pathlib import Path

ROOT = Path.cwd().resolve().parent  # the repository: notebooks/ is the working directory
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import logging

logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # no font-cache notice on a fresh machine
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from reference import Episode, find
from reference.budget import KINDS, TIERS, RunBudget, Spend
from reference.loops.guarded import Parts, guarded_loop
from reference.loops.react import react_loop
from reference.report import print_table as table
from reference.runner import evaluate

# %% [markdown]
# ## 1. Four ways out of a loop
#
# Every run of the kit ends with one `StopReason`, and every stop reason belongs to one of four kinds
# of exit (plus `error`, when the run could not go on at all):
#
# - **normal**: the model answered without calling a tool;
# - **resource**: a limit would be crossed: steps, tokens, time or money, whichever comes first;
# - **guard**: the loop noticed the model going round in circles, or a tool kept failing (lessons 3, 5);
# - **no progress**: steps went by without any new information (lesson 3).
#
# The lesson-1 loop has the first exit and one resource, steps. This lesson adds the other three
# resources.

# %%
for kind, reasons in KINDS.items():
    print(f"{kind:<12} {', '.join(r.value for r in reasons)}")

# %% [markdown]
# ## 2. Break it: the lesson-1 loop on four budget scenarios
#
# Each scenario sets its own limits in its `limits` block (what the deployment or the user allows):
#
# - `token-blowup`: a model paging through logs, each page bigger than the last, all kept in context;
# - `cost-blowup`: a premium model reading one huge ticket export after another;
# - `slow-tools`: regional reports that take 20 simulated seconds each, against a 60-second budget;
# - `incident-40-step`: a troubleshooting request on a deployment with a 50-step cap and no budget.
#
# The lesson-1 loop only knows `max_steps`:

# %%
BUDGET_SCENARIOS = ["token-blowup", "cost-blowup", "slow-tools", "incident-40-step"]
naive = {name: react_loop(Episode.from_scenario(find(name)), max_steps=find(name).limits.max_steps)
         for name in BUDGET_SCENARIOS}


def row(name, result) -> dict:
    limits = find(name).limits
    return {"scenario": name, "stop reason": result.stop_reason.value, "calls": result.model_calls,
            "tokens": result.usage.total_tokens, "max_tokens": limits.max_tokens, "cost $": result.cost_usd,
            "max_cost $": limits.max_cost_usd, "sim s": round(result.sim_seconds, 1), "max s": limits.max_seconds}


table([row(n, r) for n, r in naive.items()],
      ["scenario", "stop reason", "calls", "tokens", "max_tokens", "cost $", "max_cost $", "sim s", "max s"])

# %%
tb, cb, st, inc = (naive[n] for n in BUDGET_SCENARIOS)
display(Markdown(f"""
Each run ended on the step limit or with a late answer. Three broke a budget they never looked at,
and the fourth had no budget to break:

- `token-blowup` read **{tb.usage.total_tokens:,} tokens** against a budget of {find('token-blowup').limits.max_tokens:,}
  ({tb.usage.total_tokens / find('token-blowup').limits.max_tokens:.1f} times over) in {tb.model_calls} steps;
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
# one before, and all of them stay in the context, so the input of each request grows step after step
# and the total grows roughly with the square of the steps. The output (the model's tool calls) is a
# rounding error.

# %%
steps = tb.steps
cumulative, total = [], 0
for s in steps:
    total += s.input_tokens + s.output_tokens
    cumulative.append(total)
table([{"step": s.step, "input tokens": s.input_tokens, "output tokens": s.output_tokens, "total so far": c}
       for s, c in zip(steps, cumulative)], ["step", "input tokens", "output tokens", "total so far"])

# %%
limit = find("token-blowup").limits.max_tokens
fig, ax = plt.subplots(figsize=(8, 3.6))
ax.bar([s.step for s in steps], [s.input_tokens for s in steps], color="#8fb3d9", label="input tokens of the request")
ax.plot([s.step for s in steps], cumulative, color="#c0392b", marker="o", label="tokens used so far")
ax.axhline(limit, color="black", linestyle="--", linewidth=1, label=f"max_tokens = {limit:,}")
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
# ## 4. Fix it: a budget checked before each request
#
# `reference/budget.py` has `RunBudget`, the `budget` part of the guarded loop
# (`reference/loops/guarded.py`), which asks it two questions:
#
# - `before_request(episode, messages, step)`: would the next request cross a limit? The request is
#   estimated *before* it is sent: its input tokens are counted exactly as the provider counts them
#   (the kit's estimator over the request in its wire format, messages and tool schemas), plus a
#   reserve for the answer; its cost follows from the price list; its time is the slowest earlier
#   request's.
# - `before_tool(episode, call)`: would this tool run cross the time budget, going by its earlier runs?
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
      ["scenario", "stop reason", "calls", "tokens", "max_tokens", "cost $", "max_cost $", "sim s", "max s"])
print()
for name, result in fixed.items():
    print(f"{name:<17} {result.detail}")

# %% [markdown]
# Each budget scenario now stops on its own budget, below the limit, and the detail says which limit
# closed and by how much. The incident still runs to its 50 steps: its deployment set no budget at
# all. Section 7 comes back to it.
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


for name in ("token-blowup", "cost-blowup", "slow-tools"):
    late = with_budget(name, lambda ep: CheckedAfter.from_limits(ep.limits))
    good = fixed[name]
    limits = find(name).limits
    used = {"token-blowup": (late.usage.total_tokens, good.usage.total_tokens, limits.max_tokens, "{:,} tokens"),
            "cost-blowup": (late.cost_usd, good.cost_usd, limits.max_cost_usd, "${:.4f}"),
            "slow-tools": (late.sim_seconds, good.sim_seconds, limits.max_seconds, "{:.1f} s")}[name]
    after, before, cap, fmt = used
    print(f"{name:<13} checked after: {fmt.format(after):>14} ({after / cap:.0%} of the limit)   "
          f"checked before: {fmt.format(before):>14} ({before / cap:.0%})")

# %% [markdown]
# Checked after, every run overshoots, and by the largest step of the run. Checked before, with the
# next request in mind, none does. In `slow-tools` the difference is the tool: the third 20-second
# report is refused before it starts, because the two before it each took 20 seconds. The loop
# answers the refused call (the protocol needs a result for every call) and stops:

# %%
slow = fixed["slow-tools"]
for s in slow.steps:
    for t in s.tools:
        print(f"step {s.step}: {t.name}({json.dumps(t.arguments)}) ran from {t.started:.1f} s for {t.seconds:.1f} s")
print("refused:", slow.messages[-1].content)

# %% [markdown]
# ## 5. Test it
#
# Every scenario of the catalogue carries an `expect` block: what a well-designed loop does with it.
# With the budget alone, the three budget scenarios now meet theirs, and so does the happy path
# (a budget must not change a run that stays inside its limits):

# %%
for name in ("token-blowup", "cost-blowup", "slow-tools", "happy-path"):
    checks = evaluate(find(name), with_budget(name))
    print(f"{name:<13} {'PASS' if all(c.ok for c in checks) else 'FAIL'}  " + "; ".join(c.detail for c in checks[:2]))

# %% [markdown]
# Your turn: `exercises/ex02_budget.py` asks for the same budget in five small steps. Check it with
# `loopkit check ex02` (hints: `loopkit hint ex02`). The tests run it on these scenarios and on the
# incident; they also catch the four classic wrong answers: a step count as the only budget, a check
# after the request instead of before, a clock that leaves out tool time, and a token count that
# leaves out the input.

# %% [markdown]
# ## 6. Choosing max_steps from data
#
# "How did you pick max_steps?" The answer that convinces is not a number but a method: run a batch of
# real tasks, keep the ones that succeeded, look at the distribution of their steps, take the P95 and
# add a margin. Most business tasks have a single-digit P95; a limit of 20 or 30 usually means the task
# is split badly or the tools are too fine-grained, and the limit hides it. Limits differ by intent: a
# simple lookup needs a few steps, a troubleshooting session around ten.
#
# The kit's **fleet** (`reference/fleet.py`) does this on two task families,
# `fleet-lookup` (two tools, three model calls when all goes well) and `fleet-troubleshoot` (five tools,
# six calls). Their models are seeded and stochastic: after a tool call the model repeats it with
# probability `policy.repeat_last_call`, and with probability `policy.stuck` (drawn once per run) a run
# never concludes. These rates are the kit's own synthetic settings, not measurements of any real model.
# One seed is one run; the runs use the lesson-1 loop with a generous cap.

# %%
from reference.fleet import CAP, QUANTILE, fit_tiers

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
The successful runs needed between {min(counts)} and {max(counts)} model calls; **P95 = {rec.p95_steps}**
(nearest rank: {QUANTILE:.0%} of the successful runs needed at most that). With a margin of one fifth
(at least one step), the recommendation is **max_steps = {rec.max_steps}**.
The same P95-plus-margin rule on the successful runs' spend (with room for the budget's output reserve)
gives the other limits:
{rec.max_tokens:,} tokens, {rec.max_seconds:g} simulated seconds, \\${rec.max_cost_usd:g}.
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
# The same method on each task family gives one tier per intent. `reference/budget.py` keeps them in
# `TIERS` (`policy_for(intent)`), and the kit's tests check that they still match what the fleets
# recommend. Each tier is then checked on its fleet again, with all four limits on, through the
# guarded loop and `RunBudget`:

# %%
def same_limits(a, b) -> bool:
    return (a.max_steps, a.max_tokens, a.max_seconds, a.max_cost_usd) == (b.max_steps, b.max_tokens, b.max_seconds,
                                                                          b.max_cost_usd)


rows = []
for intent, report in tiers.items():
    r, check = report.recommendation, report.check
    rows.append({"intent": intent, "family": r.scenario, "P95 steps": r.p95_steps, "max_steps": r.max_steps,
                 "max_tokens": r.max_tokens, "max s": r.max_seconds, "max $": r.max_cost_usd,
                 "answered": f"{check.completion_rate:.1%}", "worst run $": check.max_run_cost_usd,
                 "over a limit": check.overshoots, "in TIERS": same_limits(TIERS[intent], r.policy())})
table(rows, ["intent", "family", "P95 steps", "max_steps", "max_tokens", "max s", "max $", "answered",
             "worst run $", "over a limit", "in TIERS"])
general = TIERS["general"]
print(f"\ngeneral (no known family, not fitted): max_steps {general.max_steps}, max_tokens {general.max_tokens:,}, "
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
With max_steps = {lookup.recommendation.max_steps} alone, {steps_only.completion_rate:.1%} of the lookup fleet
would be answered; with the whole tier, {lookup.check.completion_rate:.1%}. For the slowest lookups the token
budget trips before the step limit: a fifth of a small P95 is less than one more step. Whether that is the
right price is a product decision; the fleet shows what it is, and that no run ends over a limit.
"""))

# %% [markdown]
# Those shares are the **trigger rates** of each limit, the health metric to watch in production. A
# rising max_steps or budget trigger rate means either the limit was cut too deep or the tasks of that
# intent are getting harder (or were never a good fit for an agent loop); either way the data, not a
# hunch, says which.
#
# A scenario states its intent in its `intent` field. `RunBudget.for_episode(episode)` combines the
# scenario's `limits` (the deployment's, or the user's) with its intent's tier: **for each limit the
# tighter of the two wins**, and a limit set by neither is not enforced. The detail names which side
# set the limit that tripped.

# %%
for name in ("incident-40-step", "token-blowup", "slow-tools", "happy-path"):
    episode = Episode.from_scenario(find(name))
    budget = RunBudget.for_episode(episode)
    print(f"{name} (intent {episode.scenario.intent}): {budget.describe()}")
    print(f"    set by: {budget.sources}")

# %% [markdown]
# ## 7. The 40-step incident
#
# *"A request ran for more than 40 steps, burned real money in one go, and the user still got no
# answer. What do you do right now, and what do you do afterwards?"*
#
# **First, stop the bleeding, in minutes.** Put hard limits in place: if there is no step cap and no
# cost budget, that is the first fix to ship, with conservative values. Route that intent to a fixed
# pipeline or to a person for now, so users are served while you look. Rate-limit per user and per
# session, so one bad case cannot be replayed into a bigger bill. Here is the first fix, the
# troubleshoot tier, on the incident:

# %%
incident_fixed = with_budget("incident-40-step", RunBudget.for_episode)
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
instead of {inc.model_calls}. It does not answer the user: the run still stops for lack of budget. Lesson 3
stops it for the right reason (the loop it is in), and lesson 4 turns the stop into a useful answer.
"""))

# %% [markdown]
# **Then, read the trace for its shape.** Three shapes, three different fixes: the same call repeated
# (intercept it by its fingerprint), two tools calling back and forth (untangle the dependency
# between them), or a tool that keeps returning nothing useful while the model rephrases (make empty
# results say what to try next). The incident's trace has all three:

# %%
calls = [(t.name, json.dumps(t.arguments, sort_keys=True)) for s in inc.steps for t in s.tools]
for (tool, args), n in Counter(calls).most_common(4):
    print(f"{n:>3} x {tool}({args})")
sequence = [t for t, _ in calls]
flips = sum(1 for a, b in zip(sequence, sequence[1:]) if a != b)
print(f"tool changes between consecutive calls: {flips} of {len(sequence) - 1}")
print("first calls:", " -> ".join(sequence[:9]))

# %% [markdown]
# **Finally, prevent it.** Alert on the max_steps trigger rate, the P99 of steps and the P99 of cost
# per request; make the per-request cost budget mandatory; add this case to the regression set; and if
# requests like it always follow the same path, make that path a fixed workflow instead of an agent.
# Say the trade-off out loud: a step cap cut too hard lowers the success rate of the hard requests, so
# watch the trigger rate after the change. A high rate means either the cut went too deep or this kind
# of task does not belong in an agent loop, and the data tells you which. For the user: show progress
# and offer a stop button, instead of 40 silent steps.
#
# ## 8. The interview
#
# **Questions this lesson prepares for:**
#
# 1. *How do you set max_steps, and on what basis?*
#    A strong answer: measured, not guessed. Run a batch of real tasks, take the step distribution of
#    the successful ones, P95 plus a margin; expect a single-digit P95 for most business tasks, and
#    treat a cap of 20 or 30 as a smell (bad task split, tools too fine-grained). Tiers per intent (a
#    lookup needs a few steps, troubleshooting around ten). Then show the trade-off: completion against
#    spend as the cap moves, and the runs that never conclude as the cost of a high cap.
# 2. *Is the step limit enough? What other gates?*
#    A strong answer: no, one step can cost a few hundred tokens or tens of thousands. Token, time and
#    cost budgets on top, the first to trip stops the run; checked *before* each request with that
#    request's estimate (input and output tokens, the wire-format request as the provider counts it)
#    and before each tool run with its expected latency, so the run never overshoots by its largest
#    step. Four kinds of exit: normal, resource, guard, no progress; the stop reason is recorded, and
#    the distribution of stop reasons is a health metric.
# 3. *A request ran 40+ steps and burned real money with no answer. What now?*
#    A strong answer keeps the order: stop the bleeding first (hard caps and a cost budget, route the
#    intent to a fixed pipeline or a person, rate-limit per user and session); then classify the trace
#    (repeats, alternation, empty results and rephrasing: three different fixes); then prevent
#    (alerts on the max_steps trigger rate, P99 steps and P99 cost per request, a mandatory per-request
#    budget, the case in the regression set, a workflow where the path is fixed), and watch the
#    trigger rate to know whether the cap was cut too deep.
#
# **Weak answers the interviewer hears:** "we set max_steps to 10" with no basis; a step cap as the only
# gate; `if budget.exhausted()` after the request; "just lower max_steps" when the model loops (it hurts
# the hard requests and fixes nothing); diving into the root cause before stopping the bleeding.
