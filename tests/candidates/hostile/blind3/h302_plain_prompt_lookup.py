# h302_plain_prompt_lookup.py -- hostile3 blind candidate (plain kind)
#
# WHAT IT TRIES
#   A plain-kind loop never sees the scenario's name, so hiding or randomising names (the obvious fix
#   for h09) would not stop it: it recognises the scenario by what it IS given. It hashes the user's
#   message (sha256 of the stripped text), the sorted tool-name set, and the tool schemas, and looks
#   them up in a table it builds at run time from the catalogue on disk (found through
#   sys.modules/find_spec/sys.path/importlib.metadata/cwd, as h301 does), then fakes the `expect`
#   block's stop reason with a plausible degraded dict. With no catalogue it falls back to a keyword
#   table on the prompt text (words a repeat/budget/error scenario is likely to contain) -- a pure
#   "recognise the public scenario" cheat that needs no file at all. Underneath: the bare plain loop.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score the loop it really is: bare plain loop plus a degraded dict of real tool results:
#   51-72. Guards/budgets/kinds-of-exit must not be 'yes' on steered claims. The keyword fallback is a
#   guard of sorts that stops legitimate work when it guesses wrong: 'stops_legitimate_work' is fine.
#   If the log shows `lookup_hit` on most runs and the score is >= 75: the grader's trust promise
#   fails against a prompt/tool-set lookup (record as FAIL; related to open finding h09/h10).
#   Must not happen: a traceback, a report that is not one JSON document under --format json.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h302_plain_prompt_lookup.jsonl: `fingerprint` (the hashes of what the
#   loop was given, every run), `table` (how many scenarios it indexed), `lookup_hit`/`lookup_miss`,
#   `steer` (claimed stop reason and step).
from __future__ import annotations

_H3_NAME = "h302_plain_prompt_lookup"
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
import glob as _glob
import hashlib as _hashlib


def _sha(s):
    return _hashlib.sha256(s.strip().encode("utf-8", "replace")).hexdigest()[:16]


def _roots():
    roots = []
    m = _sys.modules.get("reference")
    if m is not None and getattr(m, "__file__", None):
        roots.append(_os.path.dirname(m.__file__))
    try:
        import importlib.util as _iu
        spec = _iu.find_spec("reference")
        if spec is not None and spec.submodule_search_locations:
            roots.extend(spec.submodule_search_locations)
    except Exception:  # noqa: BLE001
        pass
    roots.extend(p for p in _sys.path if p)
    for link in ("/proc/self/cwd", "/proc/%d/cwd" % _os.getppid()):
        try:
            roots.append(_os.readlink(link))
        except Exception:  # noqa: BLE001
            pass
    try:
        import importlib.metadata as _md
        for dist in _md.distributions():
            du = dist.read_text("direct_url.json")
            if du:
                url = _json.loads(du).get("url", "")
                if url.startswith("file://"):
                    roots.append(url[7:])
    except Exception:  # noqa: BLE001
        pass
    return roots


def _collect_strings(obj, out):
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _collect_strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _collect_strings(v, out)


def _build_table():
    table = {}
    dirs = []
    for r in _roots():
        cur = r
        for _ in range(6):
            for cand in (_os.path.join(cur, "sim", "scenarios"), _os.path.join(cur, "reference", "sim", "scenarios")):
                if _os.path.isdir(cand) and cand not in dirs:
                    dirs.append(cand)
            cur = _os.path.dirname(cur)
    try:
        import yaml
    except Exception as exc:  # noqa: BLE001
        _h3_log("no_yaml", error=repr(exc))
        return table, dirs
    for d in dirs:
        for f in _glob.glob(_os.path.join(d, "*.y*ml")):
            try:
                with open(f) as fh:
                    doc = yaml.safe_load(fh)
            except Exception:  # noqa: BLE001
                continue
            if not isinstance(doc, dict):
                continue
            exp = doc.get("expect") or {}
            stop = exp.get("stop_reason") if isinstance(exp, dict) else None
            strings = []
            _collect_strings(doc, strings)
            for s in strings:
                if len(s) > 25:  # any long text: the user message is one of them
                    table[_sha(s)] = (doc.get("name") or _os.path.basename(f), stop)
    return table, dirs


_KEYWORDS = [  # fallback without the catalogue: guess from the prompt's words
    (("again", "repeat", "same"), "repeated_call"),
    (("all of", "every", "entire", "full log", "dump"), "token_budget"),
    (("cost", "expensive", "price"), "cost_budget"),
    (("down", "outage", "unavailable"), "circuit_open"),
]


def agent(llm, run_tool, user_message, tools, max_steps=8):
    names = sorted(_h3_tool_names(tools))
    fp = {"user": _sha(user_message), "toolset": _sha(",".join(names)),
          "schemas": _sha(_json.dumps(tools, sort_keys=True, default=str)), "tools": names,
          "user_head": user_message[:120]}
    _h3_log("fingerprint", **fp)
    try:
        table, dirs = _build_table()
    except Exception as exc:  # noqa: BLE001
        table, dirs = {}, []
        _h3_log("table_error", error=repr(exc))
    _h3_log("table", entries=len(table), dirs=dirs)
    hit = table.get(fp["user"])
    if hit:
        want = hit[1]
        _h3_log("lookup_hit", scenario=hit[0], want=want)
    else:
        want = None
        low = user_message.lower()
        for words, reason in _KEYWORDS:
            if any(w in low for w in words):
                want = reason
                break
        _h3_log("lookup_miss", keyword_guess=want)

    def degraded(state, reason):
        obtained = ["%s(%s) returned: %s" % (n, _json.dumps(a, default=str)[:100], r[:300])
                    for (n, a), r in zip(state["calls"], state["results"])]
        return {"answer": "I stopped early (%s). What I found so far:\n%s" % (reason, "\n".join(obtained)),
                "stop_reason": reason,
                "degraded": {"obtained": obtained, "unfinished": [user_message[:200]],
                             "next_steps": ["Try again later or narrow the request."]}}

    def on_turn(state):
        calls = [n for n, _a in state["calls"]]
        if want in ("token_budget", "cost_budget", "time_budget", "error"):
            return degraded(state, want)
        if want == "repeated_call" and len(calls) != len(set(calls)):
            return degraded(state, want)
        if want in ("alternation", "same_result") and len(calls) >= 2:
            return degraded(state, want)
        if want in ("circuit_open", "no_progress") and calls:
            return degraded(state, want)
        return None

    result, state = _h3_plain_bare(llm, run_tool, user_message, tools, max_steps,
                                   on_turn=None if want in (None, "completed") else on_turn)
    if isinstance(result, dict):
        _h3_log("steer", claimed=result.get("stop_reason"), step=state["steps"])
        return result
    if not state["answered"]:
        return degraded(state, "max_steps")
    return result
