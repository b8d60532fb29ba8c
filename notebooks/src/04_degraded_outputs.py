# ---
# # Lesson 4 source. Edit this file, then rebuild and re-run the notebook:
# #     python notebooks/build.py 04
# # Cells: `# %%` starts code, `# %% [markdown]` starts markdown (comment lines). Every figure quoted
# # in prose is computed by a cell (Markdown built from f-strings): never type a measured number.
# ---

# %% [markdown]
# # Lesson 4: degraded outputs
#
# *About 25 minutes to read and run; the exercise takes about 65 more.* (Reading estimated
# from the text at 150 words a minute, the code at 30 lines a minute and the outputs skimmed; every cell
# runs in seconds. docs/workshop.md says how the exercise times were estimated, and has the agendas.)
#
# Lessons 2 and 3 made the loop stop for the right reason: a budget that would be crossed, a loop
# that persists after an intervention, steps that bring nothing new. This lesson is about what the
# user gets when it stops.
#
# "Max steps reached" is the classic answer, and a red flag in interviews: the run spent real money,
# often found something, and hands the user nothing. A **degraded result** hands over what the run
# did get, honestly:
#
# - **why it stopped**, in plain words;
# - **what was obtained**: facts from tool calls that *succeeded*, each traceable to its result;
# - **what is unfinished**: the task's checklist items no successful call covered;
# - **what to do next**: narrow the request, rephrase it, retry later, hand it over to a person.
#
# Optionally, one last model request that may not call tools (`tool_choice="none"`) writes the answer
# in prose, sent only if its estimate fits what is left of the run's limits (nothing is kept back from
# the loop for it). The lesson measures what that costs and what happens when it does not fit, fails,
# or makes things up.
#
# Break it, observe, fix, test. Everything runs offline on the kit's scripted scenarios.

# %% [markdown]
# ## Setup

# %%
from __future__ import annotations

import json

from kit import load_exercise  # notebooks/kit.py: puts the repository root on sys.path; loads solutions/ and exercises/

from IPython.display import Markdown, display

from reference import Episode, find
from reference.core.toolresult import clip as clip_result
from reference.parts.budget import TIERS, RunBudget
from reference.sim.scenario.schema import LimitsDef
from reference.parts.degrade import Degrader
from reference.parts.degrade.evidence import gather, outcome_of, records
from reference.parts.degrade.next_steps import NEXT_STEPS
from reference.parts.guards.guard import LoopGuard
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.loops.react import react_loop
from reference.cli.table import print_table as table

# %% [markdown]
# ## 1. Break it: what the user gets at the step limit
#
# The interview card's pressure question: a troubleshooting request ran 40-odd steps, cost real
# money, and the user got nothing. The kit's `incident-40-step` scenario is that request, on an
# agent deployed with a step cap of 50 and no budget. Run the lesson-1 loop on it.

# %%
incident = find("incident-40-step")
naive_episode = Episode.from_scenario(incident)
naive = react_loop(naive_episode, max_steps=incident.limits.max_steps)
print(f"stop reason:   {naive.stop_reason.value}")
print(f"model calls:   {naive.model_calls}")
print(f"tokens:        {naive.usage.total_tokens:,}")
print(f"cost:          ${naive.cost_usd:.2f}")
print(f"answer:        {naive.answer!r}")
print(f"detail:        {naive.detail!r}")

# %% [markdown]
# `answer` is `None`: whatever the product shows now ("max steps reached", "something went wrong"),
# the user learns nothing. Yet the run was not empty. The ledger recorded every tool attempt with
# its structured outcome; here is what the tools actually returned, one line per distinct result:

# %%
obtained, tried = gather(naive_episode)
attempts = len(records(naive_episode))
deploy = next(o for o in obtained if o.tool == "get_deploys")
for o in obtained[:6]:
    print(f"step {o.step:>2}  x{o.times:<2} {o.label()}: {json.dumps(o.data)[:90]}")
print(f"... {len(obtained)} distinct results from {attempts} tool runs")

# %%
from datetime import datetime

first = deploy.data["deploys"][0]
since = "03:00"  # from the user's message
assert since in incident.user
gap = (datetime.strptime(since, "%H:%M") - datetime.strptime(first["at"], "%H:%M")).seconds // 60
display(Markdown(f"""
The very first step found the deploy of `{first['service']}` **{first['version']}** at **{first['at']}**,
{gap} minutes before the errors began. {naive.model_calls - deploy.step} more model calls later, the user
still had not been told. The facts were there; the loop had no way to hand them over.
"""))

# %% [markdown]
# ## 2. Observe: which of those results are facts?
#
# Not every tool result is something the user can be told. The `business-failure` scenario shows
# the trap: a refund API answers **HTTP 200** with `{"success": false, "error_code": ...}` in the
# body, and the naive loop then polls the refund status until its step limit. Classify every tool
# attempt of that run by its outcome:

# %%
refund = find("business-failure")
refund_episode = Episode.from_scenario(refund)
refund_run = react_loop(refund_episode, max_steps=refund.limits.max_steps)
by_outcome: dict[tuple[str, str], int] = {}
for step, record in records(refund_episode):
    key = (record.name, outcome_of(record))
    by_outcome[key] = by_outcome.get(key, 0) + 1
table([{"tool": tool, "outcome": outcome, "runs": n} for (tool, outcome), n in by_outcome.items()],
      ["tool", "outcome", "runs"])

# %% [markdown]
# A degrader that lists "every tool call" as obtained would tell this user that a refund was
# requested, with `ok: true` to prove it. The rules this lesson uses:
#
# | the attempt | a fact? | why |
# |---|---|---|
# | `ok` with data | yes | the tool answered with information |
# | `ok`, data says `"success": false` | no | a business failure in an HTTP 200: report it under "tried" |
# | `ok`, data empty (`[]`, `{"results": []}`) | no | "found nothing" is worth saying, not a fact to build on |
# | an error result, an exception | no | nothing was returned |
# | answered by the guard (an intervention) or "not run" | no | the tool never ran: it is not even in the ledger |
# | ran again and answered as before (the guard put its feedback in its place) | yes, once | the ledger has both runs; one call with one answer is one fact, its repeats folded into it |
# | the model's own text | no | nothing checks it; section 5 shows a scripted model inventing a delivery |
#
# The source is the **ledger**, not the history: the history mixes real results with interventions,
# "not run" answers and the model's claims. The ledger records only what tools really returned.

# %% [markdown]
# ## 3. Exercise: a degraded result instead of "max steps reached"
#
# Section 2 sorted what a stopped run holds into facts and non-facts. Write the part that turns a stop
# into something the user can use: why the run stopped, what was obtained (facts only), what is
# unfinished and what to do next. Write `degrade(episode, messages, stop)` in
# `exercises/ex04_degraded_output.py` (its docstring states the task, what you are given and what the
# tests expect), then from the repository root:
#
# ```
# loopkit check ex04        # runs tests/test_ex04_degraded_output.py against your file
# loopkit check --watch ex04
# loopkit hint ex04         # hints escalate: loopkit hint ex04 2, 3, ...
# ```
#
# The tests run your degrade inside the guarded loop on budget and loop scenarios (and on a refund
# where most tools fail), and check that the obtained items are exactly the successful tool
# results, the unfinished items match the checklist, the next steps fit the stop reason, and the
# answer neither says only "max steps reached" nor states a value no tool returned. Write it before you
# read on: sections 4 and 5 are the answer. The first hint:

# %%
from reference.cli import main as loopkit

exit_code = loopkit(["hint", "ex04", "1"])  # what `loopkit hint ex04 1` prints in a shell

# %% [markdown]
# ## 4. Fix: a structured degraded result
#
# `reference/parts/degrade/` turns those rules into the guarded loop's `degrade` part. With only that
# part switched on (no budget, no guard), the run is the same run, same calls, same cost; only the
# ending changes.
#
# What the degrade part is told is one `Stop` value (`reference/loops/hooks.py`): the reason, one line
# of detail, and what only the part that stopped the run knows, whether the failure may heal by itself
# (`retryable`), how long the service asked to wait (`retry_after`), and whether it was the model
# service that failed (then it is not asked for a last answer). *It prevents* the advice that turns a
# stop into a loop one level up: "try again now" for a failure that cannot heal, or a last request sent
# to a service that just said it is overloaded.

# %%
episode = Episode.from_scenario(incident)
fixed = guarded_loop(episode, incident.limits.max_steps, Parts(degrade=Degrader(final_answer=False)))
same = fixed.summary() | {"loop": ""} == naive.summary() | {"loop": ""}
print(f"same run as the lesson-1 loop (calls, tokens, cost): {same}\n")
print(fixed.answer)

# %% [markdown]
# The same content as data, for the UI (buttons for the next steps) and for the trace:

# %%
d = fixed.degraded.to_dict()
print(json.dumps({k: d[k] for k in ("stop_reason", "kind", "detail", "done", "unfinished")}, indent=1))
print(json.dumps(d["next_steps"], indent=1))
print(json.dumps(d["obtained"][0], indent=1))

# %% [markdown]
# Each obtained item carries its `call_id` and `step`: anyone can find the tool result it came from,
# in the history and in the ledger. Nothing in it was written by the model.
#
# **The unfinished items** come from the scenario's checklist. An item tied to a tool (and optionally
# to arguments, `when`) counts as done when a call of that tool *succeeded*, and nothing more: the
# check does not read what the call returned. An item without a tool ("recommend a fix") needs the
# model's own final answer, which a stopped run does not have. The model's opinion of its own
# progress is not consulted.

# %%
logs = next(o for o in obtained if o.tool == "search_logs")
display(Markdown(f"""
So read "done" as "the tool was reached", not "the question was answered". In the incident, *find the
failing component* is marked done because `search_logs` calls succeeded, yet what they returned is
filler such as `{logs.data['lines'][0]}`, which names no failing component. The check stays mechanical
on purpose (code can tell that a call succeeded; whether its content answers the question takes
judgement), and the facts themselves are listed under *obtained* for the reader to judge.
"""))

# %% [markdown]
# **The next steps** depend on why the run stopped. Retrying the same request later only makes
# sense when something outside was slow or failing; after a loop or a budget stop it would end the
# same way.

# %%
table([{"stop reason": r.value, "kind": r.kind, "next steps, in order": ", ".join(a)} for r, a in NEXT_STEPS.items()],
      ["stop reason", "kind", "next steps, in order"])

# %% [markdown]
# Now with the other parts on: lesson 2's budget (`RunBudget`) and lesson 3's guard (`LoopGuard`)
# stop each scenario for its own reason, and the degrader reports. The seven scenarios of the
# exercise:

# %%
STOPPED = ["token-blowup", "cost-blowup", "slow-tools", "repeat-exact", "alternation", "empty-rephrase",
           "incident-40-step"]


# The incident as lesson 2 contained it: its deployment allowed 50 steps and no budget, and a fitted tier never
# overrides a limit someone set, so the operator now runs the intent under the troubleshoot tier's limits.
INCIDENT = find("incident-40-step").model_copy(update={"limits": LimitsDef(
    max_steps=TIERS["troubleshoot"].max_steps, max_run_tokens=TIERS["troubleshoot"].max_run_tokens,
    max_seconds=TIERS["troubleshoot"].max_seconds, max_cost_usd=TIERS["troubleshoot"].max_cost_usd)})


def guarded(name: str, degrader: Degrader | None = None, share: float = 0.0, scenario=None):
    """The guarded loop with all of lessons 2-4: budget, guard, degrade."""
    scenario = scenario or (INCIDENT if name == INCIDENT.name else find(name))
    episode = Episode.from_scenario(scenario)
    budget = RunBudget.for_episode(episode, final_answer_share=share)
    degrader = degrader or Degrader(final_answer=False)
    degrader.budget = budget
    parts = Parts(budget=budget, guard=LoopGuard.for_episode(episode), degrade=degrader)
    return episode, guarded_loop(episode, scenario.limits.max_steps, parts)


rows = []
for name in STOPPED:
    _, res = guarded(name)
    g = res.degraded
    rows.append({"scenario": name, "stop reason": res.stop_reason.value, "calls": res.model_calls,
                 "obtained": len(g.obtained), "tried": len(g.tried), "done": len(g.done),
                 "unfinished": len(g.unfinished), "next": "+".join(s.action for s in g.next_steps)})
table(rows, list(rows[0]))

# %% [markdown]
# `empty-rephrase` is the honest case: every search came back empty, so nothing is claimed, and the
# answer says what was tried:

# %%
print(guarded("empty-rephrase")[1].answer)

# %% [markdown]
# ## 5. Fix, part 2: a last answer in prose, and what it costs
#
# A list of facts is honest but not friendly. One more model request, with `tool_choice="none"`, can
# turn what was gathered into a written answer. Four things make it safe:
#
# 1. **It cannot loop.** Tools stay declared (the history holds tool calls, and Anthropic refuses
#    such a history without tools) but calling them is forbidden, and the degrader asks only once.
# 2. **It is protocol-valid.** The guarded loop answers every tool call before it stops (interventions
#    and "not run" answers included), so the history can be sent as it is.
# 3. **It is paid for.** The request is estimated first, with the kit's token estimator (which is
#    what the scripted model bills; against a real API, count with the provider's tokenizer or
#    token-counting endpoint and keep a margin), and made only if it fits in what is left of the budget.
# 4. **It is checked.** A prose answer stating a number or an identifier that no tool returned is
#    dropped for the structured one. The facts never come from the prose.
#
# On `repeat-exact`, stopped by the guard after one intervention:

# %%
episode, res = guarded("repeat-exact", Degrader())
final = res.degraded.final
print(res.answer)
print()
print(f"final request: {final.status} ({final.reason})")
print(f"estimated:     {final.estimate}")
print(f"measured:      { {k: round(v, 6) for k, v in final.actual.items()} }")
print(f"tool_choice of the last request: {episode.scripted.requests[-1].tool_choice!r}")

# %% [markdown]
# The prose does say where the order is, yet *tell the user where the order is* stays under "Not done
# yet". That item has no tool, so only the model's own answer *during the run* could complete it, and
# the run stopped before one. The checklist is worked out from the run's record before the final
# request is made, and the final prose never ticks an item: it is checked only for invented values,
# not for whether it answers the question, so it is not allowed to declare the task finished.

# %% [markdown]
# The scripted model writes plainly (a real model writes better prose); what matters here is the
# price. The same measurement on every scenario of the exercise, the final request against the rest
# of the run:

# %%
final_rows = []
for name in STOPPED:
    ep, res = guarded(name, Degrader())
    f = res.degraded.final
    spent = f.actual.get("cost_usd", 0.0)
    final_rows.append({"scenario": name, "stop": res.stop_reason.value, "final": f.status, "why": f.reason,
                       "final in": f.actual.get("input_tokens"), "final out": f.actual.get("output_tokens"),
                       "last step in": ep.ledger.steps[-2].input_tokens if f.status == "used" else None,
                       "final $": spent, "run $": res.cost_usd, "final share": f"{spent / res.cost_usd:.0%}"})
table(final_rows, list(final_rows[0]))

# %%
used = [r for r in final_rows if r["final"] == "used"]
share = [r["final $"] / r["run $"] for r in used]
ratio = [r["final in"] / r["last step in"] for r in used]
skipped = [r["scenario"] for r in final_rows if r["final"] == "skipped"]
display(Markdown(f"""
- The final request was made on **{len(used)} of {len(final_rows)}** scenarios; it was {min(share):.0%} to
  {max(share):.0%} of the run's whole cost, final request included.
- It re-reads the whole history plus the last results: its input was {min(ratio):.2f} to {max(ratio):.2f}
  times the input of the last step before it. **A final answer costs at least one more step.**
- Skipped: {', '.join(f'`{s}`' for s in skipped)}: nothing to write from, or no room left in the budget.
"""))

# %% [markdown]
# ### Paying for it: the reserve

# %%
money = ("token_budget", "cost_budget")
after_money = [r for r in final_rows if r["stop"] in money]
made_after = sorted({r["stop"] for r in used})
display(Markdown(f"""
The runs above kept nothing back. After a token or cost budget stop, the final answer then *cannot* fit:
the budget stopped the loop precisely because the next request would not fit in what was left, and the
final request re-reads the same history and more. The table agrees:
{sum(r['final'] == 'used' for r in after_money) or 'none'} of the {len(after_money)} runs stopped on a token or
cost budget got a final answer, while it was made after the {', '.join(f'`{s}`' for s in made_after)} stops,
which do not mean that the token or cost budget ran out.

The tempting fix is to keep part of each limit back: stop the loop at 75% and pay the final answer from
the rest. It refuses requests that fit. The model might have answered in the very request the reserve
refused, and then the run ends with a summary instead of the answer the user asked for. The kit's
rule:

1. **A request that fits is sent.** The budget compares each request's estimate (its input, plus the
   output it may write) with what is left of the *whole* limit. The reserve never refuses it.
2. **The last answer is one of the run's steps**, paid from the same step limit (`max_steps`), never
   one more. A run that used all its steps gets the structured answer only.
3. **The reserve decides whether and how the last answer is made**: it is sent only if its estimate fits
   what is left, and to fit it quotes less. Errors and interventions shrink to their gist (they told
   the model how to go on; it is not going on), then each tool result is cut to 2,000, 600, 200 characters.
"""))

# %% [markdown]
# On `incident-40-step` (under the troubleshooting tier's limits, as lesson 2 contained it): a loop
# stopped at 75% of each limit (the tempting fix, emulated with `Degrader.loop_limits`) against the kit's
# rule:

# %%
def stopped_at_three_quarters(name: str):
    scenario = INCIDENT if name == INCIDENT.name else find(name)
    degrader = Degrader()
    tier = RunBudget.for_episode(Episode.from_scenario(scenario))
    limits = scenario.limits.model_copy(update={"max_run_tokens": tier.max_run_tokens,
                                                "max_cost_usd": tier.max_cost_usd, "max_seconds": tier.max_seconds})
    episode = Episode.from_scenario(scenario)
    budget = RunBudget.from_limits(degrader.loop_limits(limits))
    degrader.budget = RunBudget.for_episode(episode)  # the last answer may use what is left of the whole
    parts = Parts(budget=budget, guard=LoopGuard.for_episode(episode), degrade=degrader)
    return episode, guarded_loop(episode, scenario.limits.max_steps, parts)


rows = []
results = []
for label, run_it in (("stop at 75%", lambda: stopped_at_three_quarters("incident-40-step")),
                      ("send what fits", lambda: guarded("incident-40-step", Degrader(), share=0.25))):
    ep, res = run_it()
    results.append(res)
    f = res.degraded.final if res.degraded else None
    loop_calls = res.model_calls - (f is not None and f.status == "used")
    rows.append({"rule": label, "stop": res.stop_reason.value, "loop calls": loop_calls,
                 "final": f.status if f else "-", "why": f.reason if f else "-",
                 "total tokens": res.usage.total_tokens, "limit": RunBudget.for_episode(ep).max_run_tokens})
table(rows, list(rows[0]))

# %%
import logging

logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # no font-cache notice on a fresh machine
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(9.5, 2.6), dpi=100)  # fixed size and dpi: the stored picture is reproducible
limit = rows[0]["limit"]
for row, (r, res) in enumerate(zip(rows, results)):
    final = res.degraded.final if res.degraded else None
    last = (final.actual or final.estimate) if final else {}  # what the last answer cost, or would have cost
    last_tokens = last.get("input_tokens", 0) + last.get("output_tokens", 0)
    fits = final is not None and final.status == "used"
    loop_tokens = r["total tokens"] - (last_tokens if fits else 0)
    ax.barh(row, loop_tokens, color="tab:blue", label="the loop's requests" if row == 0 else None)
    ax.barh(row, last_tokens, left=loop_tokens, color="tab:green" if fits else "white",
            edgecolor="tab:green" if fits else "tab:red", hatch=None if fits else "//",
            label="last answer: paid" if fits else "last answer: would not fit")
ax.axvline(limit, color="black", linestyle="--", label=f"token limit ({limit:,})")
ax.set_yticks(range(len(rows)), [r["rule"] for r in rows])
ax.invert_yaxis()
ax.set_xlabel("tokens (input + output) on incident-40-step")
ax.set_title("What the loop spent, and what the last answer costs against what is left")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7.5)
fig.tight_layout()
plt.show()

# %%
early, fits = rows
display(Markdown(f"""
Stopped at 75%, the loop made {early['loop calls']} requests; sending what fits, it made {fits['loop calls']},
and the last answer was *{fits['final']}* ({fits['why']}), for {fits['total tokens']:,} tokens in all against
a limit of {fits['limit']:,}. When it does not fit, the structured answer stands: a request that might have
been the model's own answer is worth more than prose about a run that stopped.
"""))

# %% [markdown]
# ### When it does not fit: a smaller request

# %%
CLIP = 600  # characters kept of each tool result, in the final request only
ep, _ = guarded("cost-blowup")
exports = [len(json.dumps(rec.outcome["data"])) for _, rec in records(ep) if rec.ok]
size_text = (f"{exports[0]:,} characters each" if len(set(exports)) == 1
             else f"{min(exports):,} to {max(exports):,} characters")
display(Markdown(f"""
`cost-blowup` reads {len(exports)} ticket exports of {size_text} on a premium model. The final
request over that history would cost more than what is left. `clip_results={CLIP}` cuts each tool result
*in the final request only* to {CLIP} characters (call ids untouched, so it stays protocol-valid; the
structured result keeps the full data).
"""))

# %%
rows = []
for clip in (None, CLIP):
    ep, res = guarded("cost-blowup", Degrader(clip_results=clip))
    f = res.degraded.final
    rows.append({"clip_results": clip, "final": f.status, "why": f.reason,
                 "est. final $": f.estimate.get("cost_usd"), "run $": res.cost_usd,
                 "limit $": RunBudget.for_episode(ep).max_cost_usd})
table(rows, list(rows[0]))

# %% [markdown]
# **One clipping, two places.** The cut is `clip` from `reference/core/toolresult.py`: the head and the
# tail of the result, with a note saying what was cut. The head says what the result is, the tail how it
# ended (the last log lines, a total); the middle is what a model can best ask for again. Lesson 5's
# executor uses the same function *during* the run, on one result larger than its fair share of what is
# left of the budget (what is left, over the requests that will each send it again): the model gets the
# head, the tail and a note on how to ask for the rest, instead of a result that would push the next
# request over the budget. The false stop it prevents: one oversized export ending a run whose next
# request would have been the answer. With no token or cost budget, or room for the result, it reaches
# the model whole.

# %%
sample = json.dumps({"ok": True, "data": [f"ticket {i}: printer offline" for i in range(1, 401)]})
print(clip_result(sample, 240, ask="To see what was cut, call export_tickets again asking for less at a time."))

# %% [markdown]
# ### When it makes things up
#
# Asked to "just answer", a model under pressure may invent what it never saw. A variant of
# `repeat-exact` whose model, asked for a last answer, reports a delivery that no tool mentioned:

# %%
base = find("repeat-exact")
liar = base.model_copy(update={"name": "repeat-exact-liar", "model": base.model.model_copy(update={
    "answer_without_tools": "Good news: order A1234 was delivered on 2026-11-29 at 14:05."})})
ep, res = guarded("repeat-exact", Degrader(), scenario=liar)
print(f"final request: {res.degraded.final.status}: {res.degraded.final.reason}\n")
print(res.answer)

# %% [markdown]
# The check looks at values (numbers, dates, ids) only: the model's text is dropped because
# `2026-11-29` and `14:05` appear in no tool result, request or stop detail. It is conservative (a
# figure written as "1.2 million" instead of 1200000 also loses the prose, never the facts) and it
# does not read words: an invented "delivered" with no number in it would pass. That is why the
# structured fields, not the prose, are what the UI and the tests trust.
#
# ### When it fails
#
# The final request talks to the same provider that may just have failed. If it raises, the
# structured answer stands; the run does not crash while it is being rescued.

# %%
class FailsOnLastAnswer:
    def __init__(self, inner):
        self.inner = inner

    def complete(self, messages, tools, *, tool_choice="auto"):
        if tool_choice == "none":
            raise ConnectionResetError(104, "Connection reset by peer")
        return self.inner.complete(messages, tools, tool_choice=tool_choice)


episode = Episode.from_scenario(find("repeat-exact"))
episode.model.inner = FailsOnLastAnswer(episode.model.inner)
res = guarded_loop(episode, 8, Parts(guard=LoopGuard.for_episode(episode), degrade=Degrader()))
print(f"stop reason: {res.stop_reason.value}; final request: {res.degraded.final.status} "
      f"({res.degraded.final.reason})")
print(res.answer.splitlines()[0])

# %% [markdown]
# ### When the user presses stop
#
# A long run should show the user its progress and an interrupt button. Pressing it is a sixth kind of
# exit, `cancelled` (kind `user`): the loop honours it between steps and while it waits to retry, and
# the user gets what was found so far, with nothing more spent (no last model answer). A scenario
# scripts the press with `cancel: {at_seconds: N}` or `cancel: {after_step: N}`; a UI calls
# `episode.cancel()`.

# %%
from reference.runs.runner import run  # noqa: E402

for name in ("cancel-after-step", "cancel-during-retry"):
    res = run(find(name), "guarded")
    d = res.degraded
    print(f"{name}: {res.stop_reason.value} ({res.stop_reason.kind}) at {res.sim_seconds:.1f} s after "
          f"{res.model_calls} model calls; obtained {len(d.obtained)}, unfinished {d.unfinished}; "
          f"next: {[s.action for s in d.next_steps]}; last answer: {d.final.status}")

# %% [markdown]
# The advice also follows the failure's class, not only the stop reason: after a provider error that
# may heal (a 429, a 529) the user is told to retry later, and when the service said how long, exactly
# that ("Retry after 300 s"); after one that will not (a 400, a 401) the advice is to change the
# request or hand it over, never to retry.

# %%
res = run(find("provider-retry-after-long"), "guarded")
print(res.stop_reason.value, "|", res.degraded.next_steps[0].text)

# %% [markdown]
# ## 6. The reference solution, graded
#
# The reference solution, loaded from its file and plugged into the guarded loop (`load_exercise("ex04", "exercises")` loads yours):

# %%
solution = load_exercise("ex04")  # load_exercise("ex04", "exercises"): yours

for name in ("business-failure", "slow-tools"):
    scenario = find(name)
    ep = Episode.from_scenario(scenario)
    parts = Parts(budget=RunBudget.for_episode(ep), guard=LoopGuard.for_episode(ep), degrade=solution.degrade)
    res = guarded_loop(ep, scenario.limits.max_steps, parts)
    if res.degraded is None:
        print(f"{name}: completed, no degraded result needed: {res.answer[:80]!r}\n")
        continue
    g = res.degraded
    print(f"{name}: {res.stop_reason.value}; obtained {[o.label() for o in g.obtained]}; unfinished {g.unfinished}; "
          f"next {[s.action for s in g.next_steps]}\n")

# %% [markdown]
# ## 7. The interview
#
# **"What do you return when the loop hits its limit?"** A strong answer contains:
#
# 1. Never an error or "max steps reached": a **degraded result** in three parts, what was obtained,
#    what is unfinished, what the user can do next, plus the stop reason.
# 2. **Where the facts come from**: only tool calls that succeeded, read from the run's own record,
#    not the model's text; not errors, not interventions, and not an HTTP 200 whose body says
#    `success: false`. Every fact traceable to a call id.
# 3. **Unfinished from a checklist** the code keeps (which required calls succeeded), not from asking
#    the model whether it is done.
# 4. **Next steps that fit the stop**: narrow the request after a budget stop, rephrase after a loop
#    or empty results, hand over to a person for a deadlock or a failing system; retry later only
#    when something outside was slow or down.
# 5. Structured for the product: the UI can render buttons, the trace records the stop reason (whose
#    distribution is the cheapest health metric of an agent), and support gets the summary.
#
# **"And if the final summary call itself fails, or is over budget?"** A strong answer contains:
#
# 1. The final call is **optional**: the structured result is built first, without the model, so a
#    failure or a skip costs only the prose.
# 2. It is **estimated before it is sent** (it re-reads the whole history: about one more step), it is
#    **one of the run's steps** (never one past the step limit), and it is made only if it fits what is
#    left. A reserve never refuses a request that fits: the model might answer in it. After a token or
#    cost stop the last answer fits only by quoting less (errors to their gist, results clipped).
# 3. It cannot loop: `tool_choice="none"`, one attempt, no retries inside a stop.
# 4. Its output is **checked against the facts** (here: every number and id must come from a tool
#    result) and dropped if it invents; the model's text never becomes a fact.
# 5. If it does not fit: skip it, or shrink it (trim the tool results in that one request), or write
#    the answer from a template. Never raise the budget in the middle of a stop.
#
# **Red flags**, each caught by a named test in `tests/test_ex04_degraded_output.py`: returning
# "max steps reached"; listing every tool call as obtained, failures included; forgetting the
# unfinished checklist; asking the model for "its best answer" and passing it on unchecked.
