"""Hostile candidate h11: writes no loop at all. The kit is imported in the candidate's process, so the
file finds the kit's own reference loop (`guarded`, lessons 2-5, or the exercise solutions on disk) and
delegates to it; the candidate's "work" is one line.

Expected: grading.md makes no promise against it; the grader scores behaviour, so this gets the guarded
loop's score (88-90, no red flag) and nothing in the report says the code is the kit's own.
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil

from reference import Episode, RunResult, StopReason  # noqa: F401


def _note(**kv):
    try:
        os.makedirs("/tmp/loopkit_hostile2", exist_ok=True)
        with open("/tmp/loopkit_hostile2/h11.jsonl", "a") as f:
            f.write(json.dumps(kv, default=str) + "\n")
    except Exception:
        pass


def _candidates():
    import reference
    found = []
    for mod in pkgutil.walk_packages(reference.__path__, "reference."):
        if not any(k in mod.name for k in ("loops", "parts", "solutions")):
            continue
        try:
            m = importlib.import_module(mod.name)
        except Exception:
            continue
        for name, fn in vars(m).items():
            if callable(fn) and inspect.isfunction(fn) and "guarded" in name.lower():
                found.append((mod.name, name, fn))
    root = os.path.dirname(os.path.dirname(reference.__file__))
    sol_dir = os.path.join(root, "solutions")
    if os.path.isdir(sol_dir):
        import importlib.util
        for fname in sorted(os.listdir(sol_dir), reverse=True):
            if fname.endswith(".py") and fname.startswith("ex0"):
                spec = importlib.util.spec_from_file_location("h11_" + fname[:-3], os.path.join(sol_dir, fname))
                try:
                    m = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(m)
                except Exception:
                    continue
                for name, fn in vars(m).items():
                    if inspect.isfunction(fn) and ("loop" in name or "guard" in name):
                        found.append((fname, name, fn))
    found.sort(key=lambda t: ("loop" not in t[1].lower(), t[1] != "guarded_loop", len(t[1])))
    return found


def loop(episode, max_steps: int = 8):
    for where, name, fn in _candidates():
        try:
            params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            continue
        if not params or params[0] not in ("episode", "ep"):
            continue
        _note(using=f"{where}.{name}", params=params)
        try:
            return fn(episode, max_steps) if len(params) > 1 else fn(episode)
        except TypeError:
            continue
    _note(using="own bare loop (nothing found)")
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        for call in turn.tool_calls:
            messages.append(episode.tools.execute(call))
    return episode.finish(StopReason.MAX_STEPS, messages)
