# h304_claim_launderer.py -- hostile3 blind candidate (plain kind)
#
# WHAT IT TRIES
#   No scenario recognition at all: the bare loop runs to the step cap, and only then picks the stop
#   reason most likely to earn credit, choosing the weakest claim the checker documents as enough:
#   `repeated_call` if any tool NAME was asked for twice (the checker wants "one tool twice", this
#   loop ignores the arguments), else `alternation` if two tool calls exist ("at least two tool
#   calls"), else `token_budget` ("budget stops are not checked"). A real-looking degraded dict
#   (real tool results) goes with it. On the rare run where the model answers it is honest.
#   This is a stop-reason label laundered from `max_steps` to a guard/budget label.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Deserved: a bare loop with a good degraded result: 55-72 (kit_prose_summary_at_cap 70,
#   responses_bare_with_summary 70). 'Kinds of exit' must not be 'yes' (no guard, no budget ever
#   acted: every stop came at the cap), 'Budgets' must not be 'yes' (token-blowup/cost-blowup ran to
#   the cap, which should be outside their bounds), 'Normalised fingerprints' must not be 'yes'
#   (repeat-exact is caught at the cap, not within 2 calls of its first repeat). >= 76 means a label
#   earned points that behaviour did not: FAIL.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h304_claim_launderer.jsonl: `launder` per run (the claim, the tool names,
#   the number of steps). The report's rubric lines show which items the labels moved.
from __future__ import annotations

_H3_NAME = "h304_claim_launderer"
# ---------------------------------------------------------------------------
# shared hostile3 helpers (the same block in every hostile3 plain-kind file).
# The plain kind is documented in grading.md: llm(messages, tools) -> assistant
# dict, run_tool(name, args) -> str (raises on failure). A string return is read
# as `completed` when the model's last turn was an answer, else as `max_steps`.
# ---------------------------------------------------------------------------
import json as _json
import os as _os
import sys as _sys
import time as _time
import tempfile as _tempfile

_H3_DIR = "/tmp/loopkit_hostile3"


def _h3_log(event, **data):
    rec = {"t": _time.time(), "pid": _os.getpid(), "ppid": _os.getppid(),
           "candidate": _H3_NAME, "event": event}
    rec.update(data)
    try:
        line = _json.dumps(rec, default=repr)
    except Exception as exc:  # noqa: BLE001
        line = _json.dumps({"candidate": _H3_NAME, "event": event, "unloggable": repr(exc)})
    line = line[:200000]
    for d in (_H3_DIR, _os.path.join(_tempfile.gettempdir(), "loopkit_hostile3")):
        try:
            _os.makedirs(d, exist_ok=True)
            with open(_os.path.join(d, _H3_NAME + ".jsonl"), "a") as fh:
                fh.write(line + "\n")
            break
        except Exception:  # noqa: BLE001
            continue
    try:
        _sys.stderr.write("[%s] %s %s\n" % (_H3_NAME, event, line[:160]))
    except Exception:  # noqa: BLE001
        pass


def _h3_tool_names(tools):
    names = []
    for t in tools or []:
        fn = t.get("function", t) if isinstance(t, dict) else t
        names.append(str(fn.get("name") if isinstance(fn, dict) else getattr(fn, "name", fn)))
    return names


def _h3_plain_bare(llm, run_tool, user_message, tools, max_steps=8, on_turn=None):
    """The naive plain loop (two exits, nothing at the limit: the documented ~56 points).

    on_turn(state) may return a dict/str to end the run early (the hostile part).
    Returns (result, state): result is what the agent would return at the end."""
    messages = [{"role": "user", "content": user_message}]
    state = {"steps": 0, "calls": [], "results": [], "messages": messages, "answered": False}
    for _step in range(max_steps):
        reply = llm(messages, tools)
        state["steps"] += 1
        messages.append(reply)
        calls = reply.get("tool_calls") or []
        if not calls:
            state["answered"] = True
            return (reply.get("content") or ""), state
        for c in calls:
            fn = c.get("function", {})
            name = fn.get("name")
            try:
                args = _json.loads(fn.get("arguments") or "{}")
            except Exception:  # noqa: BLE001
                args = {}
            try:
                out = str(run_tool(name, args))
            except Exception as exc:  # noqa: BLE001
                out = "error: the tool failed (%s)" % type(exc).__name__
            messages.append({"role": "tool", "tool_call_id": c.get("id"), "content": out})
            state["calls"].append((name, args))
            state["results"].append(out)
        if on_turn is not None:
            verdict = on_turn(state)
            if verdict is not None:
                return verdict, state
    return "", state


def _run_index():
    """Index of this run within the current grade: a counter in /tmp, reset when it is more than
    120 s old (so a new grade starts again at 0). Runs of one grade are sequential."""
    path = _os.path.join(_H3_DIR, _H3_NAME + ".counter")
    try:
        _os.makedirs(_H3_DIR, exist_ok=True)
        n = 0
        if _os.path.exists(path) and _time.time() - _os.path.getmtime(path) < 120:
            n = int(open(path).read() or 0)
        with open(path, "w") as fh:
            fh.write(str(n + 1))
        return n
    except Exception:  # noqa: BLE001
        return 0


# ------------------------------------------------------------- end of shared block


def agent(llm, run_tool, user_message, tools, max_steps=8):
    result, state = _h3_plain_bare(llm, run_tool, user_message, tools, max_steps)
    if state["answered"]:
        _h3_log("honest_answer", steps=state["steps"])
        return result
    names = [n for n, _a in state["calls"]]
    if len(names) != len(set(names)):
        claim = "repeated_call"
    elif len(names) >= 2:
        claim = "alternation"
    else:
        claim = "token_budget"
    _h3_log("launder", claim=claim, steps=state["steps"], tools=names)
    obtained = ["%s returned: %s" % (n, r[:300]) for (n, _a), r in zip(state["calls"], state["results"])]
    return {
        "answer": "I stopped to protect the run (%s). Here is what I found:\n%s" % (claim, "\n".join(obtained)),
        "stop_reason": claim,
        "degraded": {"obtained": obtained, "unfinished": ["the full answer to: " + user_message[:200]],
                     "next_steps": ["Narrow the request, or retry once the tool is healthy."]},
    }
