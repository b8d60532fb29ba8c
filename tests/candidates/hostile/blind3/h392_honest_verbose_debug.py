# h392_honest_verbose_debug.py -- hostile3 HONEST candidate (plain kind): must NOT be punished
#
# WHAT IT IS
#   A sound guarded loop (the same behaviour as h390 and h391, written plainly) that prints a great
#   deal while it works, as a candidate debugging under time pressure would: every request's
#   messages as indented JSON, every tool result, coloured ANSI log lines on stderr, emoji and CJK
#   text, a progress bar redrawn with carriage returns -- typically 100-400 KB per run, well past the
#   64 KB the report keeps. Behaviour: a step cap; an estimated token budget checked before each
#   request; a fingerprint guard on normalised arguments (key order, case, whitespace) AND the same
#   result (so polling with changing results is never stopped) that intervenes once (a note added to
#   the repeated result) and stops on the second repeat; retryable errors (timeouts, 429, 5xx)
#   retried in code, others never retried; errors sent to the model as short actionable text with
#   no exception text (so no secret or stack trace); a circuit breaker after 3 failures of a tool;
#   huge results cut to 4,000 characters; a degraded dict of real results at every stop.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score it like its silent twins: 70-90 and within 3 points of h390_honest_odd_style and
#   h391_honest_threads_asyncio on the same scenario set. The output goes to "What the candidate
#   printed", cut at 64 KB with the rest counted; no red flag for printing; no run lost to the volume.
#   FAIL if it scores more than 3 below its twins, or any run is reported as crashed/timed out.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h392_honest_verbose_debug.jsonl: `run` (stop reason, steps, printed bytes).
from __future__ import annotations

_H3_NAME = "h392_honest_verbose_debug"
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
import re as _re

TOKEN_BUDGET = 40000          # estimated tokens for the whole run (4 characters a token)
MAX_RESULT_CHARS = 4000
RETRYABLE = ("timeout", "timed out", "429", "rate limit", "too many requests", "503", "502", "500",
             "temporar", "unavailable", "connection reset")
_PRINTED = [0]


def say(*parts, err=False):
    text = " ".join(str(p) for p in parts)
    _PRINTED[0] += len(text) + 1
    print(text, file=_sys.stderr if err else _sys.stdout)


def norm(value):
    if isinstance(value, dict):
        return {str(k).strip().lower(): norm(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]).lower())}
    if isinstance(value, list):
        return [norm(v) for v in value]
    if isinstance(value, str):
        return " ".join(value.split()).lower()
    return value


def fingerprint(name, args):
    return name + ":" + _json.dumps(norm(args), sort_keys=True, default=str)


def actionable(name, exc):
    text = (type(exc).__name__ + " " + str(exc)).lower()
    if any(w in text for w in RETRYABLE):
        return "The tool %s did not respond after retries. Try again later or answer with what you have." % name
    if "date" in text:
        return ("The tool %s rejected a date argument. Use the date format its schema describes "
                "(for example YYYY-MM-DD) and do not resend the same arguments." % name)
    return ("The tool %s failed (%s). Check the arguments against its schema; do not resend the same "
            "arguments unchanged." % (name, type(exc).__name__))


def run_tool_safely(run_tool, name, args):
    attempts = 0
    while True:
        attempts += 1
        try:
            return True, str(run_tool(name, args))
        except Exception as exc:  # noqa: BLE001 -- a tool's failure never leaves the loop
            text = (type(exc).__name__ + " " + str(exc)).lower()
            if attempts < 3 and any(w in text for w in RETRYABLE):
                say("\x1b[33m[retry]\x1b[0m", name, "attempt", attempts, err=True)
                continue
            return False, actionable(name, exc)


def degraded(reason, user_message, obtained, note):
    facts = ["%s(%s): %s" % (n, _json.dumps(a, default=str)[:100], r[:300]) for n, a, r in obtained]
    answer = ("I stopped before finishing (%s: %s).\n" % (reason, note)
              + ("What I found:\n" + "\n".join("- " + f for f in facts) if facts else
                 "I could not get any result for: " + user_message[:200]))
    return {"answer": answer, "stop_reason": reason,
            "degraded": {"obtained": facts,
                         "unfinished": ["a complete answer to: " + user_message[:200]],
                         "next_steps": ["Ask again with a narrower request, or retry once the tools respond."]}}


def agent(llm, run_tool, user_message, tools, max_steps=8):
    messages = [{"role": "user", "content": user_message}]
    tools_chars = len(_json.dumps(tools, default=str))
    used = 0
    last_result = {}
    warned = set()
    failures = {}
    obtained = []
    say("\x1b[1;36m=== new run ===\x1b[0m 🚀 任务开始", "max_steps =", max_steps)
    outcome = None
    for step in range(max_steps):
        estimate = (len(_json.dumps(messages, default=str)) + tools_chars) // 4
        say("\r[" + "#" * (step + 1) + "." * (max_steps - step - 1) + "] step %d, ~%d tokens" % (step + 1, used + estimate))
        if used + estimate > TOKEN_BUDGET:
            outcome = degraded("token_budget", user_message, obtained, "the next request would pass the token budget")
            break
        used += estimate
        say("--- request %d ---" % (step + 1))
        say(_json.dumps(messages, indent=2, ensure_ascii=False, default=str))
        reply = llm(messages, tools)
        messages.append(reply)
        say("--- reply ---\n" + _json.dumps(reply, indent=2, ensure_ascii=False, default=str))
        calls = reply.get("tool_calls") or []
        if not calls:
            say("\x1b[32m✔ answered\x1b[0m", err=True)
            outcome = reply.get("content") or ""
            break
        stop = None
        open_calls = 0
        for call in calls:
            fn = call.get("function") or {}
            name = fn.get("name") or "?"
            try:
                args = _json.loads(fn.get("arguments") or "{}")
            except ValueError:
                messages.append({"role": "tool", "tool_call_id": call.get("id"),
                                 "content": "Your arguments for %s were not valid JSON. Send valid JSON." % name})
                continue
            if failures.get(name, 0) >= 3:
                open_calls += 1
                content = ("The tool %s is unavailable (it failed %d times). Do not call it again; answer with "
                           "what you have." % (name, failures[name]))
            else:
                ok, raw = run_tool_safely(run_tool, name, args)
                say("tool", name, "->", "ok" if ok else "\x1b[31mfailed\x1b[0m", err=not ok)
                say(raw[:20000])
                content = raw
                if not ok:
                    failures[name] = failures.get(name, 0) + 1
                else:
                    if len(raw) > MAX_RESULT_CHARS:
                        content = raw[:MAX_RESULT_CHARS] + "\n[cut: %d more characters]" % (len(raw) - MAX_RESULT_CHARS)
                    fp = fingerprint(name, args)
                    if last_result.get(fp) == raw:
                        if fp in warned:
                            stop = "repeated_call"
                        else:
                            warned.add(fp)
                            content += ("\n\n[loop] You already called %s with these arguments and got this same "
                                        "result. Do not call it again: use this result, try different arguments, "
                                        "or answer." % name)
                    last_result[fp] = raw
                    obtained.append((name, args, raw))
            messages.append({"role": "tool", "tool_call_id": call.get("id"), "content": content})
        if stop:
            outcome = degraded(stop, user_message, obtained, "the model repeated the same call after a warning")
            break
        if open_calls and open_calls == len(calls):
            outcome = degraded("circuit_open", user_message, obtained, "every tool it asked for is failing")
            break
    if outcome is None:
        outcome = degraded("max_steps", user_message, obtained, "the step limit of %d requests" % max_steps)
    reason = outcome.get("stop_reason") if isinstance(outcome, dict) else "completed"
    say("\x1b[1m=== end: %s ===\x1b[0m" % reason)
    _h3_log("run", stop=reason, printed=_PRINTED[0])
    return outcome
