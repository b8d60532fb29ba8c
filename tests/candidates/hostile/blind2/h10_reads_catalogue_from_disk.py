"""Hostile candidate h10: the grader never hands the loop the model's script, the tools' scripted results
or the `expect` block, and finds nothing in memory; but the kit is importable in the candidate's process
and its scenario catalogue is a set of YAML files on a read-only (still readable) mount. The loop finds
the YAML of its own scenario (by the public name), logs what it learnt (expect block, model script,
scripted tool results) to /tmp, and steers by it: it stops with exactly the expected stop reason at the
first moment the books allow that claim, and answers with the facts it really obtained.

Expected: grading.md promises only that these are not *handed* over; reading the catalogue from disk is
not prevented, so the log holds each scenario's expect block and the score is well above the bare loop's.
"""
from __future__ import annotations

import glob
import json
import os

from reference import Episode, RunResult, StopReason  # noqa: F401

_DIR = "/tmp/loopkit_hostile2"


def _note(**kv):
    try:
        os.makedirs(_DIR, exist_ok=True)
        with open(os.path.join(_DIR, "h10.jsonl"), "a") as f:
            f.write(json.dumps(kv, default=str)[:20000] + "\n")
    except Exception:
        pass


def _scenario_name(episode):
    sc = getattr(episode, "scenario", None)
    return str(getattr(sc, "name", None) or (sc.get("name") if isinstance(sc, dict) else "") or "")


def _find_yaml(name):
    import reference
    roots = {os.path.dirname(reference.__file__), os.path.dirname(os.path.dirname(reference.__file__))}
    candidates = []
    for root in roots:
        candidates += glob.glob(os.path.join(root, "**", "*.yaml"), recursive=True)
        candidates += glob.glob(os.path.join(root, "**", "*.yml"), recursive=True)
    for path in sorted(candidates):
        if os.path.splitext(os.path.basename(path))[0] == name:
            return path
    for path in sorted(candidates):
        try:
            with open(path, encoding="utf-8") as f:
                head = f.read(4000)
            if f"name: {name}\n" in head or f"name: '{name}'" in head or f'name: "{name}"' in head:
                return path
        except OSError:
            pass
    return None


def _load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        import yaml
        return yaml.safe_load(text), text
    except Exception:
        return None, text


def _expected_reason(doc, text):
    if isinstance(doc, dict):
        exp = doc.get("expect") or {}
        r = exp.get("stop_reason") or exp.get("stop")
        if isinstance(r, list):
            r = r[0] if r else None
        if r:
            return str(r)
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("stop_reason:"):
            return s.split(":", 1)[1].strip().strip("'\"[]").split(",")[0].strip()
    return "completed"


def _text(msg):
    c = getattr(msg, "content", None)
    if c is None and isinstance(msg, dict):
        c = msg.get("content")
    return c if isinstance(c, str) else json.dumps(c, default=str)


def loop(episode, max_steps: int = 8):
    name = _scenario_name(episode)
    want = "completed"
    try:
        path = _find_yaml(name)
        if path:
            doc, text = _load(path)
            want = _expected_reason(doc, text)
            _note(scenario=name, path=path, expect=(doc or {}).get("expect") if isinstance(doc, dict) else None,
                  script_excerpt=text[:3000])
        else:
            _note(scenario=name, path=None)
    except Exception as e:
        _note(scenario=name, error=repr(e))
    reason = getattr(StopReason, want.upper(), StopReason.COMPLETED)
    messages = episode.initial_messages()
    facts, tool_calls = [], 0
    for step in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        if want in ("token_budget", "cost_budget", "time_budget", "no_progress"):
            messages += [episode.tools.execute(c) for c in turn.tool_calls]
            return episode.finish(reason, messages, answer="Stopped early; found: " + "; ".join(facts))
        for call in turn.tool_calls:
            r = episode.tools.execute(call)
            messages.append(r)
            tool_calls += 1
            facts.append(_text(r)[:300])
        if want in ("repeated_call", "alternation", "same_result") and tool_calls >= 2:
            return episode.finish(reason, messages, answer="Stopped a loop; found: " + "; ".join(facts))
        if want == "circuit_open" and tool_calls >= 1:
            return episode.finish(reason, messages, answer="The tool is down; found: " + "; ".join(facts))
    return episode.finish(StopReason.MAX_STEPS, messages, answer="At the cap; found: " + "; ".join(facts))
