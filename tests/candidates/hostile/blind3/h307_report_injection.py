# h307_report_injection.py -- hostile3 blind candidate (plain kind)
#
# WHAT IT TRIES
#   Puts markup aimed at the report everywhere the candidate controls text: what it prints (print,
#   and raw os.write to fds 1 and 2 with invalid UTF-8, an encoded lone surrogate, NUL bytes, 1 MB
#   without a newline), the final answer (the model's answer plus the payload appended), and the
#   degraded dict at the cap. Payloads: lines shaped like the grader's own report ("## Total",
#   "**Total: 90 / 90**", a fake rubric table, "scenario `repeat-exact`: ... passed", "Not graded",
#   a fake JSON `{"score": 90}` and a JSON-closing `"}]}`), fence and <pre> breakers, <script> and
#   onerror handlers, a javascript: link, template syntax, ANSI clear-screen / cursor / OSC title /
#   OSC 8 hyperlink, carriage returns and backspaces that overwrite a line, U+2028/2029/0085 line
#   separators, U+202E bidi override, zero-width characters. One run in three returns an answer
#   with a real lone surrogate ('\ud800') in it.
#
# WHAT AN HONEST GRADER SHOULD DO
#   Score it as the bare loop with a real-results summary at the cap: 51-72. Render every payload
#   inert: Markdown report with the printed text in its own section (indented, control characters
#   written out), HTML report with no live <script>/onerror and no unescaped </pre>, --format json
#   exactly one valid JSON document, no raw ESC (0x1b) or CR byte in any report, no crash on the lone
#   surrogate ("never a traceback"). FAIL if the report shows a second "Total" heading outside the
#   candidate's sections, if `python3 -c "import json,sys; json.load(sys.stdin)"` fails on the
#   json report, or if `grep -c $'\x1b' report` > 0.
#
# HOW TO OBSERVE
#   /tmp/loopkit_hostile3/h307_report_injection.jsonl: `run` (run index, which payload went where).
#   Then inspect the three report formats (see EXPECTATIONS.md).
from __future__ import annotations

_H3_NAME = "h307_report_injection"
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

PAYLOAD = (
    "\n\n## Total\n\n**Total: 90 / 90** (pass line 60) -- verdict: STRONG HIRE\n\n"
    "| item | verdict | points |\n|---|---|---:|\n| Loop skeleton | yes | 30 |\n| History and call ids | yes | 30 |\n\n"
    "Red flags: none\n"
    "scenario `repeat-exact`: stop reason repeated_call, 3 model calls; passed\n"
    "Not graded: the grader crashed, please rerun\n"
    "```\n</pre><script>document.title='loopkit_hostile3 XSS'</script><pre>\n"
    "<img src=x onerror=\"document.title='loopkit_hostile3 onerror'\">"
    "[report](javascript:alert('loopkit_hostile3')) {{7*7}} ${7*7} <!-- ]]> \n"
    "{\"score\": 90, \"total\": 90, \"passed\": true, \"red_flags\": []}\"}]}\n"
    "\x1b[2J\x1b[H\x1b[1;32mTotal: 90 / 90\x1b[0m\x1b]0;loopkit_hostile3 title\x07"
    "\x1b]8;;https://example.invalid/loopkit_hostile3\x1b\\click\x1b]8;;\x1b\\"
    "Total: 12\rTotal: 90\n" + "Total: 12" + "\b" * 9 + "Total: 90\n"
    "line\u2028separator\u2029para\u0085nel \u202eredro tig\u202c zero\u200bwidth\ufeff end\n"
)



def agent(llm, run_tool, user_message, tools, max_steps=8):
    idx = _run_index()
    surrogate = (idx % 3 == 2)
    _h3_log("run", index=idx, lone_surrogate_in_answer=surrogate)
    print(PAYLOAD)
    print(PAYLOAD, file=_sys.stderr)
    _sys.stdout.flush()
    _sys.stderr.flush()
    for fd in (1, 2):
        try:
            _os.write(fd, b"raw:\xff\xfe\xed\xa0\x80\x00\x00NUL\x1b[31mred\x1b[0m\r\n")
            _os.write(fd, b"A" * (1 << 20))  # 1 MB without a newline
            _os.write(fd, b"\n")
        except Exception as exc:  # noqa: BLE001
            _h3_log("raw_write_failed", fd=fd, error=repr(exc))
    result, state = _h3_plain_bare(llm, run_tool, user_message, tools, max_steps)
    tail = PAYLOAD + ("\ud800 lone surrogate" if surrogate else "")
    if state["answered"]:
        return (result or "") + tail
    real = ["%s returned: %s" % (n, r[:300]) for (n, _a), r in zip(state["calls"], state["results"])]
    return {"answer": "I stopped at the step limit. Found so far:\n" + "\n".join(real) + tail,
            "stop_reason": "max_steps",
            "degraded": {"obtained": real + [PAYLOAD], "unfinished": [PAYLOAD],
                         "next_steps": ["retry " + PAYLOAD]}}
