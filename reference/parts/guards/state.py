"""What the loop guard remembers: every call it saw, the current model step, what it read so far, and the
state epochs that say which earlier answers still stand.

The transcript reads only the messages added since the last look: the guard's work per step does not grow with the run.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ...core.messages import AssistantMessage, Message, SystemMessage, ToolCall, UserMessage
from ...core.canonical import clean_text
from .effects import ToolInfo
from .arguments import argument_leaves
from .results import leaf_values
from .quotes import quoted
from .wording import plainly
from .words import words
from .thresholds import Thresholds

if TYPE_CHECKING:
    from .feedback import Detection


# An identifier: a word with a digit or a separator inside (KB-101, us-east-2, foreman/issue-449, etf_code.mst).
_TOKEN = re.compile(r"[\w./:@-]+")
_IDENTIFIER = re.compile(r"\w[._/:@-]\w|\d")

def identifiers(text: str) -> set[str]:
    """The identifiers in a text, folded."""
    words = (w.strip("./:@-") for w in _TOKEN.findall(clean_text(text)))
    return {w.casefold() for w in words if _IDENTIFIER.search(w)}


def _names_a_thing(value: str) -> bool:
    """Is a one-word value an identifier of letters and digits (KB-102, us-east-2, A1234)? It names one thing,
    wherever the agent got it (a range the user gave as "KB-101 to KB-104", its own knowledge): four of them
    answered alike are four answers. A bare number (a window, a limit) names nothing by itself."""
    return identifiers(value) == {value} and any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


@dataclass
class GuardedCall:
    """One tool call the model asked for, as the guard saw it."""

    step: int
    call: ToolCall
    action: str  # the fingerprint (reference/core/canonical.py)
    epoch: int = 0  # the state epoch it was asked in: successful writes and "it changed" errors before it
    index: int = 0  # its place among the run's attempts
    heard: int = 0  # user messages the model had read when it asked
    news: int = 0  # new answers the run had brought when it was asked; once it ran, including its own
    learned: int = 0  # reads that showed something new, when it was asked; once it ran, including its own
    writes: bool = False  # may it change state (effects.py)
    arguments: Any = None  # the canonical arguments (None: not a JSON object)
    subject: str = ""  # what it asks about: the arguments without their free wording (subject_of)
    topic: str = ""  # the same without positions (page, offset): what a listing's pages are about
    followed: frozenset = frozenset()  # the cursors it sent that the last page gave (books.py): positions too
    ran: bool = False
    result: Optional[str] = None  # the result fingerprint, echoes and metadata aside
    transient: bool = False  # it failed in a way that passes by itself (responses.transient)
    answer: Any = None  # once it ran: its answer as the tool gave it, read (a failure's Retry-After, echoes kept)
    unsettled: bool = False  # a write that timed out: it may have acted (responses.timed_out)
    final: bool = False  # it failed and said of itself it will not pass (responses.says_final)
    failed: bool = False  # it ran and the tool refused it or failed
    error_class: Any = None  # the failure's kind, when it failed (failures.Failure)
    recheck: bool = False  # a repeat let through because its answer may have moved: judged by its result
    asked: bool = False  # it carries a passage the user quoted: the user asked for it in these words
    empty: bool = True  # it brought no content (no values once echoes and metadata are removed)
    lists: bool = False  # its answer lists things of its own (a non-empty list): compared across subjects
    silent: bool = False  # it succeeded and answered nothing at all (an empty text, null)
    blank: bool = False  # it succeeded and answered nothing but zeros, falses and empty texts (says_nothing)
    reports: bool = False  # it succeeded and its answer carries content, not only an acknowledgement (reports)
    content: Any = None  # once it succeeded: its answer without the call's own echoes
    echoed: bool = False  # it succeeded and its answer sent back something the call sent (the thing it names)
    quoted: bool = False  # it succeeded and its answer quoted back its wording (text of two words or more)
    taught: bool = False  # a read that showed a value no result had shown before
    showed: bool = False  # it succeeded and showed a value no result had shown before (a read or not)
    brought: bool = False  # its answer was news (see `Memory.news_between`)
    to_come: bool = False  # its answer names a moment it has no value for yet (`finished_at: null`)
    alike: int = 0  # once it ran: calls in a row (nothing new said between) that got its answer to its question
    alike_before: Optional["GuardedCall"] = None  # the last of those before it
    reply: Optional[tuple] = None  # once it ran: the question its answer was booked under (Memory.reply_key)
    told_from: int = 0  # `Memory.told` before its answer was booked
    told_to: int = 0  # and after: it said something new when they differ


@dataclass
class Step:
    """The model step whose calls the guard is seeing now."""

    number: int = 0  # model requests so far: the step these calls belong to (1-based, as in the ledger)
    turn: tuple[str, ...] = ()  # the ids of the calls the model asked for in this step
    actions: dict[str, str] = field(default_factory=dict)  # action -> id of its first call in this step
    new: int = 0  # values first seen in this step's results
    shown: int = 0  # of those, values the answers showed (not subjects asked, writes that took, errors)
    counts: bool = False  # a result of this step can say whether the run moved (a success, or a guess)
    flagged: bool = False  # the guard already intervened in this step (one lapse per turn)

    def end(self) -> None:
        """After the step: forget what it found; `number` and `turn` change when the next step starts."""
        self.new, self.shown, self.counts, self.flagged = 0, 0, False, False
        self.actions = {}


@dataclass
class Transcript:
    """The conversation as far as the guard needs it, read incrementally (messages are only appended)."""

    read: int = 0  # messages already read
    steps: int = 0  # assistant messages so far
    last_turn: tuple[str, ...] = ()  # the call ids of the latest assistant message
    last_calls: tuple = ()  # the calls of the latest assistant message (a parallel batch is one unit)
    user_texts: list[str] = field(default_factory=list)
    quoted: list[str] = field(default_factory=list)  # passages the user quoted (code spans, quotations), folded
    heard: int = 0  # user messages that came after the model's first turn: each one refreshes what reads knew
    said: list[str] = field(default_factory=list)  # the model's last two non-empty texts
    folded: str = ""  # what the user wrote, and the system prompt, case-folded (Memory.named_in)
    users: str = ""  # what the user alone wrote, case-folded: the days it names bound a window (asking.py)
    _request: Optional[str] = None

    def catch_up(self, messages: Sequence[Message]) -> None:
        if len(messages) < self.read:  # a different conversation: start over
            self.__init__()  # type: ignore[misc]
        for m in messages[self.read:]:
            if isinstance(m, AssistantMessage):
                self.steps += 1
                self.last_turn, self.last_calls = tuple(c.id for c in m.tool_calls), tuple(m.tool_calls)
                if m.text and m.text.strip():
                    self.said = [*self.said[-1:], m.text]
            elif isinstance(m, (UserMessage, SystemMessage)):  # the system prompt carries the user's profile too
                self.user_texts.append(m.text)
                self.folded += "\n" + clean_text(m.text or "").casefold()
                self.heard += isinstance(m, UserMessage) and self.steps > 0
                if isinstance(m, UserMessage):
                    self.users += "\n" + clean_text(m.text or "").casefold()
                    passages = (clean_text(q).casefold() for q in quoted(m.text or ""))
                    self.quoted += [q for q in passages if len(words(q)) >= 2]
                self._request = None
        self.read = len(messages)

    @property
    def request(self) -> str:
        """What the user asked, with the system prompt: joined once per new message, not once per call."""
        if self._request is None:
            self._request = "\n".join(self.user_texts)
        return self._request


@dataclass
class Memory:
    """Everything the detectors may read; the guard (guard.py) writes it, but for the marks a detector leaves on
    the call it is judging (`recheck`, `asked`: repeats.py), read back when that call's answer comes."""

    tools: dict[str, ToolInfo]
    thresholds: Thresholds
    attempts: list[GuardedCall] = field(default_factory=list)
    by_id: dict[str, GuardedCall] = field(default_factory=dict)
    by_action: dict[str, list[GuardedCall]] = field(default_factory=dict)  # action -> its attempts, in order
    epoch: int = 0  # successful calls that may change state, and errors saying a resource changed, so far
    news: int = 0  # answers so far that brought new information (see `news_between`)
    learned: int = 0  # successful reads so far that showed a value no result had shown before
    given: dict[str, set[str]] = field(default_factory=dict)  # action -> every answer it got
    last_result: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # action -> (epoch, heard, result)
    changing: set[str] = field(default_factory=set)  # actions whose last re-run changed their answer
    moments: dict[str, tuple] = field(default_factory=dict)  # action -> (its last answer without moments, them)
    owned: dict[str, frozenset] = field(default_factory=dict)  # tool -> moments its answers showed to be state
    alone: dict[str, frozenset] = field(default_factory=dict)  # tool -> date-times that moved alone: the response's
    own: dict[str, frozenset] = field(default_factory=dict)  # tool -> members that moved alone: the response's
    turned: dict[str, dict[str, int]] = field(default_factory=dict)  # action -> member -> its last move's direction
    answers: dict[tuple, list[GuardedCall]] = field(default_factory=dict)  # (tool, subject, result, epoch) -> calls
    seen: set[str] = field(default_factory=set)  # every value the run's results have shown, and each subject asked
    errors: dict[tuple[str, Any], set[str]] = field(default_factory=dict)  # (tool, failure's kind) -> actions
    # tool -> (its last failure's kind, member -> the words it took in the moves in a row it made alone)
    failing: dict[str, tuple[Any, dict[str, set[str]]]] = field(default_factory=dict)
    tool_runs: dict[str, int] = field(default_factory=dict)  # tool -> its calls answered so far
    counting: dict[str, set[str]] = field(default_factory=dict)  # tool -> members equal to its call number last time
    words: dict[str, str] = field(default_factory=dict)  # tool -> its last call's arguments but numbers
    # reply_key -> (calls in a row that got that answer, `told` after the last of them, the last of them)
    replies: dict[tuple, tuple[int, int, GuardedCall]] = field(default_factory=dict)
    told: int = 0  # calls so far whose answer said something new: a first answer, new values, a new kind of failure
    recent: deque = field(default_factory=lambda: deque(maxlen=8))  # the latest attempts, for cycles
    ran: deque = field(default_factory=lambda: deque(maxlen=8))  # the latest calls that ran
    new_per_step: deque = field(default_factory=lambda: deque(maxlen=16))  # news, per step that counts, since `heard`
    heard: int = 0  # the user messages the steps in `new_per_step` answer
    now: Step = field(default_factory=Step)
    read: Transcript = field(default_factory=Transcript)

    def info(self, tool: str) -> ToolInfo:
        return self.tools.get(tool) or ToolInfo(tool)

    def answer_key(self, a: GuardedCall) -> Optional[tuple]:
        """Which answers `a`'s answer is compared with for rephrasing: one tool, one subject, one epoch."""
        if not a.ran or a.failed or a.empty or a.recheck or a.result is None:
            return None
        # one list of things, asked about one topic in other words or at other positions, is one answer whatever
        # changed state in between; the same list about another subject (the transitions of two issues) is not
        return (a.call.name, a.topic, a.result, -1, a.heard) if a.lists else (a.call.name, a.subject, a.result, a.epoch, a.heard)

    def reply_key(self, a: GuardedCall) -> Optional[tuple]:
        """Which question `a` asked, for its answer to be compared with: one tool, one user turn, and the things
        it names that the user or an earlier answer named (four SKUs the user listed, four files a search found,
        are four questions); whatever else the agent spelled (a respelled path, a cache-buster, a reworded
        search) is one question when it gets one answer. A call that may change state keeps its whole subject (the
        entity it acts on: nine updates of nine entities are nine, whatever each acknowledgement says); its free
        wording aside (a checklist sent along with one build command)."""
        if not a.ran or a.result is None or a.failed:
            return None  # a failure is not an answer (repeats and guesses have their own rules)
        if not a.writes:
            return a.call.name, self.named_in(a), a.result, a.heard
        # an empty acknowledgement shows nothing of what a write did: writes that answer nothing are told apart by
        # all they were sent (three different `mv` commands are three moves), quoting and spacing aside
        said = plainly(v for _, v in argument_leaves(a.arguments) if isinstance(v, str) and len(words(v)) >= 2)
        # an answer with no content and no list (`{"affected_rows": 10000}`), or quoting the write's wording back, only
        # acknowledges what it was sent: six id ranges, five notes stored ("Remembered: <note>") are six and five acts
        acknowledges = a.blank or a.quoted or not (a.reports or lists_things(a.content))
        return a.call.name, a.subject + (" " + said if acknowledges else ""), a.result, a.heard

    def named_in(self, a: GuardedCall) -> frozenset:
        """What the call names that the user (or the system prompt) wrote or an earlier answer showed: an argument
        of one word ("Paris", an id a listing gave), the identifiers the user wrote in its wording (us-east-2,
        src/app.py), and any one-word identifier of letters and digits (KB-103), wherever the agent got it."""
        named = set()
        for _, v in argument_leaves(a.arguments):
            if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                text = clean_text(str(v)).casefold()
                if len(words(text)) > 1:
                    named |= {w for w in identifiers(text) if w in self.read.folded}
                elif text and (text in self.read.folded or leaf_values(v) <= self.seen or _names_a_thing(text)):
                    named.add(text)
        return frozenset(named)

    def still_stands(self, earlier: GuardedCall, now: GuardedCall) -> bool:
        """Could nothing between `earlier` and `now` have changed the answer? A failure stands until state
        changes (a user message does not fix a deterministic error); a write stands until the user speaks
        again; a read until either happens, or until a write times out after it: a timed-out write may have
        acted, so the read after it checks whether it did (a replica count read again after a resize timed out),
        and only reads asked again after that check repeat it."""
        if earlier.failed:
            return earlier.epoch == now.epoch
        # a write that timed out after `earlier` was asked may have acted: a read after it (or a call of unknown
        # effect that answered as a read does, repeats.py) checks whether it did
        checks = any(x.unsettled and x.step > earlier.step for x in self.attempts[earlier.index + 1:now.index]) \
            and (not earlier.writes or (self.info(earlier.call.name).unknown and earlier.reports))
        if earlier.writes:
            return earlier.heard == now.heard and not checks
        return earlier.epoch == now.epoch and earlier.heard == now.heard and not checks

    def news_between(self, earlier: GuardedCall, now: GuardedCall) -> bool:
        """Did anything between them bring new information: a successful call that may change state with an
        answer it never gave before, an error saying a resource changed, or any call answering with new
        values, differently from every earlier run of that call (progress elsewhere in the run)?"""
        return earlier.news != now.news

    def learned_between(self, earlier: GuardedCall, now: GuardedCall) -> bool:
        """Did a read between them show something no result had shown before (the page a click loaded)?"""
        return earlier.learned != now.learned

    def polled_between(self, earlier: GuardedCall, now: GuardedCall) -> bool:
        """Did a poll run again between them (a read of a world that moves by itself, asked before `earlier`; any
        read, when `earlier` answered nothing at all, as a shell's `sleep 120` does)? Then the calls around it
        set its pace: a wait, a back-off."""
        for x in self.attempts[earlier.index + 1:now.index]:
            info = self.info(x.call.name)
            if x.ran and not x.writes and (info.moves_by_itself or earlier.silent) \
                    and self.by_action[x.action][0].index < earlier.index:
                return True
        return False

    def user_spelled(self, a: GuardedCall) -> bool:
        """Does the call carry a passage the user quoted (`pytest tests/x.py -q`, "Q3 plan")? Then the user
        asked for it in those words."""
        if not self.read.quoted:
            return False
        texts = [clean_text(v).casefold() for _, v in argument_leaves(a.arguments) if isinstance(v, str)]
        return any(q in t for t in texts for q in self.read.quoted)


class Detector:
    """One rule of the guard. `before_call` sees a call before it runs, `after_result` after (with the
    answer the same call got last time, while that answer still stands); each returns a Detection or None.
    `legitimate` is a scenario the rule must let complete untouched."""

    pattern = ""
    legitimate = ""

    def before_call(self, m: Memory, a: GuardedCall) -> "Optional[Detection]":
        return None

    def after_result(self, m: Memory, a: GuardedCall, before: Optional[str]) -> "Optional[Detection]":
        return None


def lists_things(value: Any) -> bool:
    """Does an answer list things of its own (a list anywhere in it, an empty one too: `"results": []`, a search that
    found nothing), rather than only say how many it handled?"""
    return isinstance(value, list) or isinstance(value, dict) and any(lists_things(v) for v in value.values())
