"""Lesson 1: the ReAct loop on native function calling, in about 20 lines.

One step is one model request. The model reasons and proposes tool calls; the code runs them and
appends the observations. The assistant message that carries the tool calls goes into the history
*before* the tool results that answer it, or the next request is refused. An answer without tool calls
goes to the user, who may reply (a conversation, as customer service has): the reply joins the history
and the loop goes on. Two exits: a final answer (no tool calls, and nothing more from the user), or the
step limit, the fuse that the later lessons replace with real guards.
"""
from __future__ import annotations

from ..harness.episode import Episode
from ..core.result import RunResult, StopReason


def react_loop(episode: Episode, max_steps: int = 8) -> RunResult:
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)  # reason
        messages.append(turn.message)  # the assistant turn, tool calls included
        if not turn.tool_calls:  # an answer, to the user
            reply = episode.user_reply()  # a conversation: the user may say more
            if reply is None:  # exit 1: a final answer
                return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
            messages.append(reply)
        for call in turn.tool_calls:  # act, in code
            messages.append(episode.tools.execute(call))  # observe
    return episode.finish(StopReason.MAX_STEPS, messages,  # exit 2: the fuse
                          detail=f"stopped after {max_steps} steps without an answer")
