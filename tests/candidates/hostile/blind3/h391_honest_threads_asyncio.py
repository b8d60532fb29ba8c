# h391_honest_threads_asyncio.py -- hostile3 HONEST candidate (plain kind): must NOT be punished
#
# WHAT IT IS
#   The same sound guarded loop as h392 (same limits, guard, retries, breaker, messages), run on
#   asyncio with threads, as a candidate used to async services would write it: the run is a
#   coroutine driven by asyncio.run (in a worker thread if the calling thread already has an event
#   loop), each model request goes through asyncio.to_thread, the tool calls of one turn run
#   CONCURRENTLY (asyncio.gather over asyncio.to_thread), and their results are then appended in the
#   order the model asked for them; a daemon heartbeat thread counts ticks and is stopped at the end.
#   The only decision that can differ from h392: several calls to one failing tool in the SAME turn
#   all run before the breaker counts them (the breaker opens one turn later).
#
# WHAT AN HONEST GRADER SHOULD DO
#   Threads and asyncio are legitimate: score it like h390/h392, 70-90, within 3 points of them; no
#   red flag; no run reported as crashed, hung or "sent something it cannot read" because requests
#   came from a thread other than the main one, or two tool requests were in flight at once. FAIL
#   otherwise (a channel that is not safe for concurrent use is a grader bug, not a candidate's fault).
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h391_honest_threads_asyncio.jsonl: `run` (stop reason, how many turns had
#   concurrent tool calls, heartbeat ticks, the threads that made requests).
from __future__ import annotations

_H3_NAME = "h391_honest_threads_asyncio"
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
import asyncio as _asyncio
import threading as _threading

TOKEN_BUDGET = 40000          # estimated tokens for the whole run (4 characters a token)
MAX_RESULT_CHARS = 4000
RETRYABLE = ("timeout", "timed out", "429", "rate limit", "too many requests", "503", "502", "500",
             "temporar", "unavailable", "connection reset")
_PRINTED = [0]


def say(*parts, err=False):
    """Silent here (h392 prints); kept so the decisions read the same as in h392."""
    return None


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


async def _main(llm, run_tool, user_message, tools, max_steps, stats):
    messages = [{"role": "user", "content": user_message}]
    tools_chars = len(_json.dumps(tools, default=str))
    used = 0
    last_result, warned, failures, obtained = {}, set(), {}, []

    def tracked(fn, *a):
        stats["threads"].add(_threading.current_thread().name)
        return fn(*a)

    for step in range(max_steps):
        estimate = (len(_json.dumps(messages, default=str)) + tools_chars) // 4
        if used + estimate > TOKEN_BUDGET:
            return degraded("token_budget", user_message, obtained, "the next request would pass the token budget")
        used += estimate
        reply = await _asyncio.to_thread(tracked, llm, list(messages), tools)
        messages.append(reply)
        calls = reply.get("tool_calls") or []
        if not calls:
            return reply.get("content") or ""
        plan = []
        for call in calls:
            fn = call.get("function") or {}
            name = fn.get("name") or "?"
            try:
                args = _json.loads(fn.get("arguments") or "{}")
            except ValueError:
                plan.append((call, name, None, "bad_json"))
                continue
            plan.append((call, name, args, "open" if failures.get(name, 0) >= 3 else "run"))
        runs = [p for p in plan if p[3] == "run"]
        if len(runs) > 1:
            stats["concurrent_turns"] += 1
        outcomes = await _asyncio.gather(*[_asyncio.to_thread(tracked, run_tool_safely, run_tool, n, a)
                                           for _c, n, a, _k in runs])
        by_call = {id(p[0]): o for p, o in zip(runs, outcomes)}
        stop, open_calls = None, 0
        for call, name, args, kind in plan:
            if kind == "bad_json":
                content = "Your arguments for %s were not valid JSON. Send valid JSON." % name
            elif kind == "open":
                open_calls += 1
                content = ("The tool %s is unavailable (it failed %d times). Do not call it again; answer with "
                           "what you have." % (name, failures[name]))
            else:
                ok, raw = by_call[id(call)]
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
            return degraded(stop, user_message, obtained, "the model repeated the same call after a warning")
        if open_calls and open_calls == len(calls):
            return degraded("circuit_open", user_message, obtained, "every tool it asked for is failing")
    return degraded("max_steps", user_message, obtained, "the step limit of %d requests" % max_steps)


def agent(llm, run_tool, user_message, tools, max_steps=8):
    stats = {"concurrent_turns": 0, "threads": set(), "ticks": 0}
    done = _threading.Event()

    def heartbeat():
        while not done.wait(0.05):
            stats["ticks"] += 1
    hb = _threading.Thread(target=heartbeat, name="h391-heartbeat", daemon=True)
    hb.start()
    box = {}

    def runner():
        try:
            box["out"] = _asyncio.run(_main(llm, run_tool, user_message, tools, max_steps, stats))
        except BaseException as exc:  # noqa: BLE001 -- handed back to the calling thread below
            box["exc"] = exc
    try:
        _asyncio.get_running_loop()
        in_loop = True
    except RuntimeError:
        in_loop = False
    if in_loop:
        t = _threading.Thread(target=runner, name="h391-runner")
        t.start()
        t.join()
    else:
        runner()
    done.set()
    hb.join(1.0)
    out = box.get("out")
    _h3_log("run", stop=out.get("stop_reason") if isinstance(out, dict) else "completed",
            concurrent_turns=stats["concurrent_turns"], ticks=stats["ticks"], threads=sorted(stats["threads"]),
            in_running_loop=in_loop)
    if "exc" in box:
        raise box["exc"]
    return out
