"""Lessons 2-5: the guarded loop. The lesson-1 loop, with a small part at each named hook.

    budget    lesson 2  before each model request and each tool run: would this overshoot a limit?
    guard     lesson 3  before each tool call: a repeat, a cycle? intervene first, stop if it persists
                        after each result: the same answer again? no new information?
    degrade   lesson 4  on any stop that is not a final answer: what was obtained, what is unfinished,
                        what to do next (optionally one last tool-less answer)
    executor  lesson 5  how a call runs: retries in code, actionable errors, circuit breakers

Every part is optional (`Parts()` is the lesson-1 loop with an executor), so a notebook can switch
them on one at a time. The contract is loops/hooks.py; the whole loop stays in this one function.
"""
from __future__ import annotations

from typing import Optional

from ..core.errors import HarnessError
from ..core.messages import ToolCall, ToolMessage
from ..core.model import Turn
from ..core.result import RunResult, StopReason
from ..harness.episode import Episode
from .hooks import RUN, Parts, Stop, not_run

CANCELLED = Stop(StopReason.CANCELLED, "the user pressed stop")
MODEL_ATTEMPTS_CAP = 99  # model requests per step, failures included: a fuse for an executor that never gives up


def guarded_loop(episode: Episode, max_steps: int = 8, parts: Parts | None = None) -> RunResult:
    parts = parts or Parts()
    messages = episode.initial_messages()

    def stop(why: Stop) -> RunResult:
        episode.trace.event("trip", reason=why.reason.value, detail=why.detail)  # which part ended the run, and why
        degraded = parts.degrade(episode, messages, why) if parts.degrade else None
        answer = getattr(degraded, "answer", None)  # a learner's degrade may return any object
        return episode.finish(why.reason, messages, answer=answer, degraded=degraded, detail=why.detail)

    def answer(call: ToolCall) -> tuple[ToolMessage, Optional[Stop]]:
        """One tool call: the user's stop button, the guard's verdict, then the budget, then the executor."""
        if episode.cancel_requested(between_steps=False):
            return not_run(call, CANCELLED.detail), CANCELLED
        verdict = parts.guard.before_call(episode, call, messages) if parts.guard else RUN
        if verdict.action != "run":  # intervene (feedback instead of a result), or stop
            episode.trace.event("guard", action=verdict.action, call_id=call.id, tool=call.name,
                                detail=verdict.stop.detail if verdict.stop else None)
            ending = verdict.stop if verdict.action == "stop" else None
            return verdict.message or not_run(call, ending.detail if ending else "not run"), ending
        over = parts.budget.before_tool(episode, call) if parts.budget else None
        if over:
            return not_run(call, over.detail), over
        result = parts.executor.execute(episode, call)
        if not parts.guard:
            return result, None
        checked = parts.guard.after_result(episode, call, result)
        if checked is not result:
            episode.trace.event("guard", action="intervene_after_result", call_id=call.id, tool=call.name)
        return checked, None

    def request() -> Turn | Stop:
        """One model request; a provider failure is sent again only as the executor's policy and budget allow."""
        for attempt in range(1, MODEL_ATTEMPTS_CAP + 1):
            try:
                return episode.model.complete(messages, parts.executor.offered(episode))
            except HarnessError:
                raise  # the loop's own bug, a scenario too short, a grader pulling the plug: not to hide
            except Exception as exc:  # the provider failed (429, 5xx, timeout...) after the SDK's own retries
                why = parts.executor.after_model_failure(episode, exc, attempt)
                if why:
                    return why
        return Stop(StopReason.ERROR, f"the model request failed {MODEL_ATTEMPTS_CAP} times in one step")

    episode.max_steps = max_steps  # a final answer is one of these steps, never one more
    for step in range(max_steps):
        if episode.cancel_requested():  # between steps: the user's stop button
            return stop(CANCELLED)
        if parts.budget:
            room = parts.budget.headroom(episode)  # what is left of each limit, for lesson 6's traces
            if room:
                episode.trace.event("budget", **room)
            over = parts.budget.before_request(episode, messages, step)
            if over:
                return stop(over)
        turn = request()
        if isinstance(turn, Stop):
            return stop(turn)
        messages.append(turn.message)
        if not turn.tool_calls:
            if turn.finish_reason in ("length", "refusal"):  # cut off or refused: not an answer to hand over
                return stop(Stop(StopReason.ERROR, f"the model's last turn ended with finish reason {turn.finish_reason}"))
            reply = episode.user_reply()  # a conversation: the user answers, and the run goes on
            if reply is None:
                return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
            messages.append(reply)
            continue
        stopping: Optional[Stop] = None
        for call in turn.tool_calls:
            if stopping:  # every call of the turn is answered, even when the run is ending
                messages.append(not_run(call, "the run is stopping: " + stopping.detail))
                continue
            result, stopping = answer(call)
            messages.append(result)
        stopping = (stopping or (parts.guard.after_step(episode, messages) if parts.guard else None)
                    or parts.executor.after_step(episode))
        if stopping:
            return stop(stopping)
    return stop(Stop(StopReason.MAX_STEPS, f"no answer after {max_steps} steps"))
