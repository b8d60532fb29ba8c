"""The round rule: a round of calls (start, read, stop) that repeats the round before it word for word, but for the ids
each round's own answers minted and its later calls then named, is one loop, writes and all.

A process started again gets a new PID, and the read and the kill that follow name it, so no call is its own twin
and no two calls take turns; yet nothing the agent chose changed, and every answer said what it said last round. An
id that differs is allowed only if the round minted it: it first appears in one of the round's answers, then in a
later call of the same round. Not a round the user counted (repeats.counted: "run the suite 3 times", each run read
by its PID), nor a poll and its wait, nor a round whose answers moved (a server that came up on the third start: its words
differ), nor a round over things a listing gave (each item was in an answer before the round began, so the agent
chose it), nor one that edits anything between two starts (the edit's words are new).
"""
from __future__ import annotations

import json
import re
from typing import Optional

from . import feedback
from .feedback import Detection
from .repeats import counted
from .state import Detector, GuardedCall, Memory

LEGITIMATE = """
name: dev-server-fixed-between-starts
title: A dev server started, read and stopped, its config fixed, started again until it serves
user: Start the dev server and check that it serves.
tools:
  - name: launch
    description: Launch a command in the background.
    parameters: {type: object, properties: {command: {type: string}}}
    rules:
      - when: {command: npm run dev}
        results: [{data: {pid: 101, output: "EADDRINUSE :3000"}}, {data: {pid: 102, output: "ready on :3001"}}]
  - name: output_of
    description: The output of a launched process.
    parameters: {type: object, properties: {pid: {type: integer}}}
    rules:
      - when: {pid: 101}
        result: {data: {state: exited, output: "EADDRINUSE :3000"}}
      - when: {pid: 102}
        result: {data: {state: running, output: "ready on :3001"}}
  - name: edit_env
    description: Set a variable in the project's .env file.
    parameters: {type: object, properties: {name: {type: string}, value: {type: string}}}
    rules:
      - result: {data: {saved: true}}
model:
  script:
    - call: {tool: launch, args: {command: npm run dev}}
    - call: {tool: output_of, args: {pid: 101}}
    - call: {tool: edit_env, args: {name: PORT, value: "3001"}}
    - call: {tool: launch, args: {command: npm run dev}}
    - call: {tool: output_of, args: {pid: 102}}
    - answer: The dev server serves on port 3001.
expect: {completable: true, stop_reason: completed, oracle_model_calls: 6}
"""
_TOKEN = re.compile(r"\w+")
# calls in a round: a start, a read, a stop and one more (3 to 6 move no figure of the field sets: all their rounds
# are of three calls); a longer round is work, not a cycle
_LONGEST = 4


def _said(x: GuardedCall) -> list[tuple[str, ...]]:
    """A call's tokens, as two parts: what it sent (as written) and what it was answered (echoes aside)."""
    answer = x.content if not x.failed else (x.error_class.words if x.error_class else None)
    text = answer if isinstance(answer, str) else json.dumps(answer, sort_keys=True, ensure_ascii=False, default=str)
    return [tuple(_TOKEN.findall(x.call.arguments.casefold())), tuple(_TOKEN.findall(text.casefold()))]


def _minted(round_: list[list[tuple[str, ...]]], differing: set[str]) -> bool:
    """Does every token in `differing` first appear in one of the round's answers, then in a later call it sent?"""
    for token in differing:
        answered = next((i for i, (_, told) in enumerate(round_) if token in told), None)
        sent = [i for i, (asked, _) in enumerate(round_) if token in asked]
        if answered is None or not sent or min(sent) <= answered:
            return False
    return True


def same_round(was: list[GuardedCall], now: list[GuardedCall]) -> bool:
    """Does the round `now` say what `was` said, word for word, but for ids each round minted (one for one)?"""
    if [x.call.name for x in was] != [x.call.name for x in now]:
        return False
    pairs: dict[str, str] = {}
    said_was, said_now = [_said(x) for x in was], [_said(y) for y in now]
    for x, y in zip(said_was, said_now):
        for u, v in zip(x, y):
            if len(u) != len(v):
                return False
            for s, t in zip(u, v):
                if s != t and pairs.setdefault(s, t) != t:
                    return False
    moved = {s: t for s, t in pairs.items() if s != t}  # none: the same calls again, the repeat and cycle rules' case
    return bool(moved) and len(set(moved.values())) == len(moved) and _minted(said_was, set(moved)) \
        and _minted(said_now, set(moved.values()))


class Round(Detector):
    """A round of calls that repeats the round before, but for the ids each round's own answers minted and its later calls named, is one loop."""

    pattern = "alternation"
    legitimate = LEGITIMATE

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> Optional[Detection]:
        ran = [x for x in m.attempts[:a.index + 1] if x.ran]
        for k in range(2, _LONGEST + 1):
            if len(ran) < 2 * k or ran[-1] is not a:
                return None
            was, now = ran[-2 * k:-k], ran[-k:]
            if any(x.heard != a.heard for x in was) or len({x.call.name for x in now}) < 2:
                continue  # the user spoke in between; one tool alone is the repeat rules' to judge
            if any(x.silent or m.info(x.call.name).moves_by_itself for x in (*was, *now)):
                return None  # a poll and its silent wait, or answers that move by themselves: the poll rules judge them
            if same_round(was, now) and not _counted(m, was, now):
                return _detection(m, was, now)
        return None


def _counted(m: Memory, was: list[GuardedCall], now: list[GuardedCall]) -> bool:
    """Is a call the round sends again as it was one of the runs the user counted ("run the suite 3 times")? Then the
    round runs as often as asked."""
    return any(x.action == y.action and counted(m, y, [z for z in m.by_action[y.action] if z.index < y.index][-1])
               for x, y in zip(was, now))


def _detection(m: Memory, was: list[GuardedCall], now: list[GuardedCall]) -> Detection:
    names = " -> ".join(x.call.name for x in now)
    evidence = (f"The round {names} (steps {', '.join(str(x.step) for x in now)}) repeated the round before "
                f"(steps {', '.join(str(x.step) for x in was)}) word for word, but for the ids each round's own "
                "answers gave, and answered the same.")
    return Detection("alternation", evidence, 2, feedback.options(list(m.tools), *{x.call.name for x in now}, ran=True),
                     "Change what makes the round fail before running it again, or answer the user with what the "
                     "answers say. If this goes on, the run stops.")
