"""Retries and waits: a call sent again after a failure that passes by itself, or after the wait the server
asked for, is a retry within a budget; a call that is itself a wait repeats no answer of its own (repeats.py,
rules 3 and 6; answers.py and cycles.py read the same tests).

A failure that passes by itself changed nothing, so the same call may be sent again: three attempts in all, as
the OpenAI and Anthropic SDKs retry by default, or three waits where the server said how long to wait and the
wait was kept (a shell's wait read in its own units: `sleep 2m` keeps a Retry-After of 90). It must not fire on the
third send after two refused connections, nor on a 503 with Retry-After 60 answered three times and slept out each
time; it still catches a fourth attempt after three transient failures in a row, and the same 503 sent again at once.
A Retry-After can only widen the budget: a log holds no clock and a model's turn takes seconds, so a refusal that
said when to come back, sent again with no wait recorded, is a retry like any transient failure, unless the server's
own clock shows it came back sooner (`told_when.came_early`: the next refusal's Date); it must not fire on a 429 with
`Retry-After: 0` or `1` sent again twice before it passes, and still catches the fourth send of such a refusal.

A call the agent spaced by a wait of its own is a poll, judged by its answers (repeats.py, rule 7), and one whose
answer says nothing has come yet is waiting. A wait of its own is each shell's documented wait command in its list
(POSIX `sleep`, PowerShell's `Start-Sleep`, cmd's `TIMEOUT /T`, Python's `time.sleep` in `python -c`, a counted
ping of the loopback address), wherever POSIX's grammar starts a command (`{ sleep 30; ...; }`, `do sleep 5`, `time
sleep 30`), or a call that only spent time (`paused`: known by its structure, in any language). It must not fire on a workflow run polled
`sleep 10; gh run view ...` or `Start-Sleep -Seconds 10; gh run view ...` until it succeeds, nor on a commit's runs
listed empty twice before the run registers; it still catches the same poll answering `completed` again and again,
and a fourth empty list.

A state read asked again is a wait for an end (`awaiting`), judged by whether it ends within the answers alike the
run affords: it must not fire on a container read `starting` three times behind `cd /srv/app && sleep 5; ...`
before `healthy`; it still catches a job read `queued` with no start time again and again, and a poll after a
member that had no value got one (the end came).
"""
from __future__ import annotations

import re
from typing import Optional

from ...core.canonical import clean_text
from .arguments import argument_leaves
from .asking import SENTENCE, bare_state
from .state import GuardedCall, Memory, identifiers
from .told_when import came_early, retry_after

# Attempts of one call that may each fail for a transient reason (`responses.transient`) before the next is a
# repeat: three in all, as the OpenAI and Anthropic SDKs retry by default (the first try and max_retries=2).
TRANSIENT_ATTEMPTS = 3


def retrying(m: Memory, a: GuardedCall) -> bool:
    """Is `a` a retry within the budget: its latest runs, in a row, each failed in a way that passes by itself
    (`responses.transient`) or answered a 503 or 429 whose Retry-After was waited out as told, fewer of them than
    TRANSIENT_ATTEMPTS, or no more where the server said when for each?"""
    told = _retries(m, a)
    return 0 < len(told) < TRANSIENT_ATTEMPTS + all(told)


def honoured_retry(m: Memory, a: GuardedCall) -> bool:
    """Is `a` a retry the server asked for: its latest runs, in a row, each answered 503 or 429 with Retry-After,
    waited out as told, no more of them than TRANSIENT_ATTEMPTS?"""
    told = _retries(m, a)
    waits = next((i for i, said in enumerate(told) if not said), len(told))
    return 0 < waits <= TRANSIENT_ATTEMPTS


def _retries(m: Memory, a: GuardedCall) -> list[bool]:
    """The call's latest runs that passed by themselves, in a row from the last: for each, did the server say when
    (a Retry-After waited out as told) rather than only fail in a way that passes (a transient failure)?"""
    told, after = [], a
    for x in reversed([x for x in m.by_action.get(a.action, []) if x.ran and x.index < a.index]):
        if _waited_as_told(m, x, after):
            told.append(True)
        elif x.transient and m.still_stands(x, a):
            if came_early(x, after):  # the server's clock shows the next send came sooner than it was told
                return told[:next((i for i, said in enumerate(told) if not said), len(told))]
            told.append(False)  # a Retry-After not seen waited out only leaves the failure's own budget
        else:
            break
        after = x
    return told


_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _waited_as_told(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Was the call's last answer a 503 or 429 with Retry-After, and did a wait between it and now (a call that
    printed nothing, or a wait `a` runs before it asks) carry at least that many seconds? Then sending it again is
    the retry the server asked for. A shell's wait is read in its own units (`sleep 2m` is 120 seconds)."""
    seconds = retry_after(last) if last.ran else None
    if seconds is None:
        return False
    if (waited := _waited_first(a)) is not None and waited >= seconds:
        return True
    for x in m.attempts[last.index + 1:a.index]:
        if printed_nothing(m, x) and any(n >= seconds for n in _seconds(x)):
            return True
    return False


def _seconds(x: GuardedCall) -> list[float]:
    """The seconds a wait's arguments give: each shell's wait command read in its own units, or else every number
    it sent (a wait tool's `{"seconds": 30}`)."""
    said: list[float] = []
    for _, v in argument_leaves(x.arguments):
        waits = [seconds for seconds, _ in _shell_waits(v)] if isinstance(v, str) else []
        said += waits or [float(n) for n in _NUMBER.findall(str(v))]
    return said


def a_wait(m: Memory, last: GuardedCall, a: GuardedCall, adds: bool = False) -> bool:
    """Is the call a wait between other calls: its last run printed nothing and a call that answered something ran
    since (a `sleep` between polls), or it says nothing of its effects, adds nothing, and a poll ran since (a capped
    back-off's `sleep 240` that echoes)? Its repeats are then judged by those calls' answers."""
    between = m.attempts[last.index + 1:a.index]
    if printed_nothing(m, last):
        return any(x.ran and not printed_nothing(m, x) for x in between)
    return a.writes and m.info(a.call.name).unknown and not adds and m.polled_between(last, a)


# Each shell's own wait, as its definition reads its operand: POSIX's `sleep` utility ("suspend execution for an
# interval", XCU: seconds; GNU coreutils and BusyBox also take a fraction and a suffix s, m, h or d, and BusyBox is
# asked as `busybox sleep`); PowerShell's `Start-Sleep` (seconds by `-Seconds` or position, thousandths by
# `-Milliseconds`, a parameter named by any prefix of its name, case aside); cmd's `TIMEOUT /T` (seconds; GNU's
# `timeout 20 cmd`, a time limit, not a wait, has no `/T`); Python's `time.sleep(secs)` in a `python -c` program.
# A ping of the loopback address (RFC 1122, 3.2.1.3: 127/8; RFC 4291: ::1; "localhost", RFC 6761) is answered at
# once, and ping sends its echo requests a second apart (Windows `ping -n count`, iputils and BSD `ping -c count`):
# `ping -n 31 127.0.0.1 >nul`, cmd's wait where it has no `timeout`, waits count - 1 seconds, its replies thrown away.
# Each is a command of a list where POSIX's grammar (XCU 2.9) starts one: at its start, after `;`, `&`, `&&`, `||`,
# `|`, `(` or a new line, or first inside a quoted `sh -c` script, after a reserved word that opens a list (`{`, `!`,
# `if`, `then`, `else`, `elif`, `while`, `until`, `do`), or as the utility `time`, `nohup` or `command` runs (POSIX
# utilities that run the one they are given); `(seconds, the list goes on after it)`. `echo sleep 20` prints.
_START = r"(?:^|[;&|(\n]|['\"])\s*(?:(?:[{!]|if|then|else|elif|while|until|do|time(?:\s+-p)?|nohup|command(?:\s+-p)?)\s+)*"
_NEXT = r"\s*(;|&&?|\|\||\n|['\"]|$)"
_THROWN = r"(?:\s*[12]?>\s*(?:nul|/dev/null|&[12]))*"  # output sent nowhere: `>nul`, `>/dev/null 2>&1`
_LOOPBACK = r"(?:127(?:\.[0-9]{1,3}){3}|::1|localhost)"
_PING = re.compile(_START + r"ping\s+(?:-[nc]\s+([0-9]+)\s+" + _LOOPBACK + r"|" + _LOOPBACK + r"\s+-[nc]\s+([0-9]+))"
                   + _THROWN + _NEXT, re.IGNORECASE)
_POSIX = re.compile(_START + r"(?:busybox\s+|(?:/usr)?/bin/)?sleep\s+([0-9]+(?:\.[0-9]+)?)([smhd]?)" + _NEXT)
_POWERSHELL = re.compile(_START + r"Start-Sleep(?:\s+-(s|m)[a-z]*)?\s+([0-9]+(?:\.[0-9]+)?)" + _NEXT, re.IGNORECASE)
_CMD = re.compile(_START + r"timeout\s+/t\s+([0-9]+)(?:\s+/nobreak)?(?:\s*[12]?>\s*nul)?" + _NEXT, re.IGNORECASE)
_PYTHON = re.compile(_START + r"python[0-9.]*(?:\.exe)?\s+-c\s*(['\"])[^'\"]*?\bsleep\(\s*([0-9]+(?:\.[0-9]+)?)\s*\)"
                     r"[^'\"]*\1" + _NEXT)
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _shell_waits(text: str) -> list[tuple[float, bool]]:
    """Every wait command of a command list, each shell's read by its own definition: (its seconds, does the list
    go on after it with another command)."""
    waits = [(float(n) * _UNITS[unit], _goes_on(after)) for n, unit, after in _POSIX.findall(text)]
    waits += [(float(n) / (1000 if (unit or "s").lower() == "m" else 1), _goes_on(after))
              for unit, n, after in _POWERSHELL.findall(text)]
    waits += [(float(n), _goes_on(after)) for n, after in _CMD.findall(text)]
    waits += [(float(n), _goes_on(after)) for _, n, after in _PYTHON.findall(text)]
    waits += [(max(float(n or m) - 1, 0), _goes_on(after)) for n, m, after in _PING.findall(text)]
    return waits


def _goes_on(after: str) -> bool:
    """Does a command separator follow the wait (a quote or the end closes the list)?"""
    return after not in ("", "'", '"')


def waits_first(a: GuardedCall) -> bool:
    """Does the call wait before it asks (`sleep 10; gh run view ...`, `cd repo && sleep 10; ...`, `Start-Sleep
    -Seconds 20; ...`, `timeout /t 20 /nobreak >nul && ...`)? The agent spaced it to give something time to move:
    sent again, it is a poll, judged by its answers (repeats.py, rule 7), not a write sent twice, whatever the tool
    declares (a shell annotated destructive may do anything; this call waits, then asks)."""
    return _waited_first(a) is not None


def _waited_first(a: GuardedCall) -> Optional[float]:
    """The seconds the call waits before it asks, if it does (`waits_first`)."""
    waits = [seconds for _, v in argument_leaves(a.arguments) if isinstance(v, str)
             for seconds, goes_on in _shell_waits(v) if goes_on]
    return max(waits) if waits else None


def spaced(m: Memory, last: GuardedCall, a: GuardedCall) -> bool:
    """Did the agent space `a` from its last run by a wait of its own: `a` waits before it asks (`waits_first`), or
    a wait ran between the two (a call that printed nothing: `sleep 30` between two rounds of version checks)?"""
    return waits_first(a) or any(printed_nothing(m, x) for x in m.attempts[last.index + 1:a.index])


def paused(m: Memory, x: GuardedCall) -> bool:
    """Did a call only spend time? It sent nothing but numbers (`{"seconds": 30}`) and answered one short sentence
    whose only numbers are ones it sent, and either that sentence gives one back in a unit of time (ISO 80000-3's
    symbols: "Slept 30 s", "500 ms"), or the call sits between two runs of another call that both answered (a poll
    and its wait: "Se esperó 30 segundos.", "30 Sekunden gewartet.", "已等待 30 秒。", "ok", in any language). It
    tells nothing of the world, as a `sleep` that prints nothing does: a poll after it is spaced. Not a read of order
    123 answered "Order 123 shipped." on its own or after another read (no unit, no poll around it), nor a call that
    sends a name or a text."""
    sent = [v for _, v in argument_leaves(x.arguments)]
    if not (x.ran and not x.failed and sent and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                    for v in sent)):
        return False
    said = " ".join(v for _, v in argument_leaves(x.content) if isinstance(v, str))
    numbers = {float(n) for n in _NUMBER.findall(said)}
    if not (0 < len(said.split()) <= SENTENCE and numbers <= {float(v) for v in sent}):
        return False
    return bool(_DURATION.search(said)) or _between_runs(m, x)


def _between_runs(m: Memory, x: GuardedCall) -> bool:
    """Are the calls just before and just after `x` one other call, the one before answering (a poll around its wait)?
    When `x` is the latest call, the one after it is the call being judged now, a run of the call before it."""
    before = m.attempts[x.index - 1] if x.index > 0 else None
    after = m.attempts[x.index + 1] if x.index + 1 < len(m.attempts) else None
    return before is not None and before.action != x.action and before.ran and not before.failed \
        and (after is None or after.action == before.action)


# A number and a symbol of a unit of time (ISO 80000-3 and the SI: the second, the millisecond, the minute, the
# hour), as a wait's answer gives its duration back in any language ("Slept 30 s", "esperé 500 ms").
_DURATION = re.compile(r"(?<![\w.])[0-9]+(?:\.[0-9]+)? ?(?:s|ms|min|h)(?!\w)")


def not_yet(content: object) -> bool:
    """Does an answer say that nothing has come yet: it is an empty list (no run registered for the commit), or it
    holds a member with no value yet (`"conclusion": null` or `""` beside a run's status)?"""
    if isinstance(content, list):
        return not content or any(not_yet(v) for v in content if isinstance(v, (dict, list)))
    if isinstance(content, dict):
        return any(v is None or v == "" or (isinstance(v, (dict, list)) and not_yet(v)) for v in content.values())
    return False


def awaiting(m: Memory, runs: list[GuardedCall]) -> bool:
    """Is a call asked again unchanged a wait for a job to reach an end? Its runs all answered a state, not content
    (`responses.reports`), and named nothing the call did not send that no earlier run had answered (nothing was
    made: a write's new id); the run paces it (a wait of the agent's own before or between its runs, `spaced`) or
    its answer moved (a state read at once and again, never moving, is where it stays); its last answer is not yet
    at an end (a member with no value yet, `not_yet`, or a bare state); and no member an earlier answer left without a
    value has since got one (then the end came: a conclusion given, a failed count set). Such a read is judged by
    whether it ends within the bound the run affords (`Thresholds.poll_waits`). It must not fire on a container
    polled `starting` four times, five seconds apart, before `healthy`; it still catches a refund posted again and
    again (each answer a new refund id) and a check answered `None` again and again at once."""
    ran = [x for x in runs if x.ran]
    declared = ran and ran[-1].writes and not m.info(ran[-1].call.name).unknown  # a write by its definition
    if len(ran) < 2 or declared or any(x.failed or x.reports for x in ran):
        return False
    if not (not_yet(ran[-1].content) or bare_state(ran[-1])):
        return False
    seen: set[str] = set()
    for i, x in enumerate(ran):
        named = _names(x.content) - _names(x.arguments)
        if i and named - seen:
            return False
        seen |= named
    paced = any(spaced(m, x, y) or x.result != y.result for x, y in zip(ran, ran[1:]))
    return paced and not any(_filled(x.content, y.content) for x, y in zip(ran, ran[1:]))


def _filled(before: object, after: object) -> bool:
    """Did a member `before` left without a value (null or empty) get one in `after`, at the same place?"""
    if isinstance(before, dict) and isinstance(after, dict):
        return any(k in after and ((v is None or v == "") and after[k] not in (None, "")
                                   or _filled(v, after[k])) for k, v in before.items())
    if isinstance(before, list) and isinstance(after, list):
        return any(_filled(u, v) for u, v in zip(before, after))
    return False


def reads_a_state(m: Memory, x: GuardedCall) -> bool:
    """Does the call `x` answer only the state an earlier write's answer gave the thing both name: the write sent to
    a thing (`prepare-agent --agent-id QYNLBEOKX1`) answered its state (`"agentStatus": "PREPARING"`), and `x`, sent
    with that thing's name, answers that state alone (`"PREPARING"`)? Then `x` reads where the thing the write set
    going stands, as a poll does, and sent again it is judged by its answers (repeats.py, rule 7)."""
    if not (x.ran and not x.failed and bare_state(x)):
        return False
    state, names = clean_text(str(x.content)).strip().casefold(), _names(x.arguments)
    return any(y.ran and not y.failed and y.writes and y.action != x.action and names & _names(y.arguments)
               and any(isinstance(v, str) and clean_text(v).strip().casefold() == state
                       for _, v in argument_leaves(y.content))
               for y in m.attempts[:x.index])


def _names(arguments: object) -> set[str]:
    """The names a call sends that tell one thing from another: letters and digits together (`QYNLBEOKX1`)."""
    return {w for _, v in argument_leaves(arguments) if isinstance(v, str) for w in identifiers(v)
            if any(c.isalpha() for c in w) and any(c.isdigit() for c in w)}


def printed_nothing(m: Memory, a: GuardedCall) -> bool:
    """Did a call that asked for nothing but time answer nothing: it sent no text but a shell's own wait (numbers
    alone, `sleep 30`, `["sleep", "30"]`), and answered no text at all, or texts all empty beside its numbers (its
    exit code, how long it took), or only the time it was sent to spend (`paused`: "Waited 30 seconds.")? Such an
    answer repeats nothing. Not a command that asked for something and printed nothing (a grep of a clean log): it
    found nothing, an answer of its own that repeats."""
    sent = [v for _, v in argument_leaves(a.arguments) if isinstance(v, str)]  # an argv's words are one command
    if paused(m, a) or a.silent and not any(v.strip() for v in sent):
        return True
    if not a.ran or a.failed or any(v.strip() for v in sent) and not any(map(_shell_waits, [*sent, " ".join(sent)])):
        return False
    texts = [v for _, v in argument_leaves(a.content) if isinstance(v, str)]
    return a.silent or bool(texts) and not any(t.strip() for t in texts)
