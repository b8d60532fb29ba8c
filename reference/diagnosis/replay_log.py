"""Any conversation diagnose reads becomes a scenario: a real incident as a regression case in one command.

    the recorded assistant turns      the scripted model's `script`, call ids kept
    the recorded tool results         each tool's rules: per distinct arguments, the results in the order
                                      they came back (`advance: arguments`); a failure (an error flag, or
                                      plain text that opens by saying so) is a refusal (`invalid_argument`, not retryable) with the
                                      recorded text, anything else is its data (JSON parsed, text as text)
    the user's turns                  the scenario's `user` (what came before the first answer), and its
                                      `user_turns`, each said after the assistant's answer it followed

The react loop plays it back with the same tool calls in the same order. Where the scenario format has
no `user_turns` (one user turn), the assistant's text-only answers before the user's later turns are
folded into the next turn's text (an answer would end the replayed run), and the description lists the
user turns that are not played. A user turn right after tool results (no answer before it) gets an
empty answer before it, so that the scripted user speaks at the same point. A conversation that ends on calls gets a closing answer, so
the script does not run out. `expect` pins the recording: the calls made, and which tools repeated.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any, Optional

import yaml

from ..core.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from ..sim.scenario.schema import Scenario
from .logs.conversation import Conversation

# Scenarios with a scripted user (`user_turns`: said each time the model answers without tool calls) play
# every user turn of the recording; without that field, only the first.
MULTI_TURN = "user_turns" in Scenario.model_fields

_NAME = re.compile(r"[^a-z0-9-]+")
CLOSING = "(the recorded conversation ends here)"


def scenario_name(c: Conversation) -> str:
    base = f"replay-{c.id if c.id is not None else c.index}"
    return _NAME.sub("-", base.lower()).strip("-")[:60] or "replay"


def _result(message: ToolMessage) -> dict[str, Any]:
    if message.is_error:
        return {"fault": "invalid_argument", "message": message.content}
    try:
        return {"data": json.loads(message.content)}
    except (ValueError, RecursionError):
        return {"data": message.content}


def log_scenario(c: Conversation, name: Optional[str] = None) -> dict[str, Any]:
    """The scenario (a dict, as the YAML holds it) that plays conversation `c` again."""
    calls: dict[str, Any] = {}
    results: dict[str, ToolMessage] = {m.call_id: m for m in c.messages if isinstance(m, ToolMessage)}
    script: list[dict[str, Any]] = []
    system = "\n".join(m.text for m in c.messages if isinstance(m, SystemMessage)) or None
    turns = [(m, at) for m, at in zip(c.messages, c.positions) if isinstance(m, AssistantMessage)]
    users = [(at, m.text) for m, at in zip(c.messages, c.positions) if isinstance(m, UserMessage)]
    opening = turns[0][1] if turns else float("inf")
    request = "\n".join(text for at, text in users if at < opening)  # what the user asked before any answer
    later_users = [(at, text) for at, text in users if at > opening]
    said: list[str] = []  # the scripted user's turns, when the scenario format has them
    words = ""  # an assistant's text-only turn that cannot be an answer here: kept as the next turn's text
    for k, (m, at) in enumerate(turns):
        following = turns[k + 1][1] if k + 1 < len(turns) else float("inf")
        spoken = "\n".join(text for u, text in later_users if at < u < following)
        if m.tool_calls:
            step: dict[str, Any] = {"calls": []}
            for call in m.tool_calls:
                calls[call.id] = call
                one: dict[str, Any] = {"tool": call.name, "id": call.id}
                try:
                    one["args"] = call.parsed_arguments()
                except ValueError:
                    one["raw_args"] = call.arguments
                step["calls"].append(one)
            text = " ".join(t for t in (words, m.text or "") if t)
            if text:
                step["text"] = text
            words = ""
            script.append(step)
            if spoken and MULTI_TURN and k + 1 < len(turns):  # the user spoke right after the results
                script.append({"answer": ""})
                said.append(spoken)
        elif k + 1 == len(turns) or (MULTI_TURN and spoken):
            script.append({"answer": " ".join(t for t in (words, m.text or "") if t)})
            words = ""
            if k + 1 < len(turns):
                said.append(spoken)
        else:  # an answer would end the replayed run here: the words go with the next turn
            words = " ".join(t for t in (words, m.text or "") if t)
    if not script or "answer" not in script[-1]:
        script.append({"answer": CLOSING})
    by_tool: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(dict)
    whens: dict[str, Any] = {}
    for call_id, call in calls.items():
        args = _args(call)
        key = json.dumps(args, sort_keys=True, ensure_ascii=False)
        whens[key] = args
        answer = results.get(call_id)
        result = _result(answer) if answer is not None and call_id not in c.unknown else {"data": None}
        by_tool[call.name].setdefault(key, []).append(result)
    definitions = {t["name"]: t for t in c.tools}
    tools = []
    for tool, groups in by_tool.items():
        d = definitions.get(tool, {})
        spec: dict[str, Any] = {"name": tool, "description": d.get("description", "")}
        if d.get("parameters"):
            spec["parameters"] = d["parameters"]
        if d.get("annotations"):
            spec["annotations"] = d["annotations"]
        spec["rules"] = [{"when": whens[key], "results": r, "advance": "arguments"} if whens[key]
                         else {"results": r, "advance": "arguments"}
                         for key, r in sorted(groups.items(), key=lambda kv: -len(whens[kv[0]]))]
        tools.append(spec)
    made = [(call.name, json.dumps(_args(call), sort_keys=True)) for call in calls.values()]
    names = sorted({n for n, _ in made})
    repeated = {n for n in names if len([m for m in made if m[0] == n]) > len({m for m in made if m[0] == n})}
    not_played = (" The user's later turns (messages " + ", ".join(str(at) for at, _ in later_users)
                  + ") are not played: the scenario format has one user turn." if later_users and not MULTI_TURN
                  else "")
    scenario: dict[str, Any] = {
        "name": name or scenario_name(c),
        "title": f"Replay of conversation {c.index} of {c.source}" + (f" ({c.id})" if c.id is not None else ""),
        "description": f"Written by loopkit replay from a {c.format} log." + not_played,
        "tags": ["replay", "regression", "real-log"],
        "user": request,
        "tools": tools,
        "model": {"script": script},
        "expect": {"completable": script[-1]["answer"] not in ("", CLOSING), "stop_reason": "completed",
                   "tool_calls": {"min": len(calls), "max": len(calls)},
                   "must_call": names, "must_not_repeat": [n for n in names if n not in repeated]},
    }
    if system:
        scenario["system"] = system
    if said:
        scenario["user_turns"] = said
    return scenario


def _args(call: Any) -> Any:
    try:
        return call.parsed_arguments()
    except ValueError:
        return {}


def replay_log(c: Conversation, name: Optional[str] = None) -> str:
    return yaml.safe_dump(log_scenario(c, name), sort_keys=False, allow_unicode=True, width=110)
