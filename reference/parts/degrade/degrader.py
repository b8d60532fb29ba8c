"""The `degrade` part of the guarded loop, and the optional last tool-less request it may make."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ...core.messages import Message, ToolMessage, UserMessage
from ...core.model import Usage
from ...core.result import StopReason
from ...core.toolresult import clip, read_body, to_json
from ...harness.episode import Episode
from ...loops.hooks import Budget, Stop
from ...sim.scenario.schema import LimitsDef
from ...sim.tokens import request_tokens
from ...wire.protocol import to_wire
from .evidence import checklist, gather
from .grounding import grounding_sources, ungrounded
from .next_steps import WHY, next_steps
from .result import Degraded, FinalCall


FINAL_NOTE = ("[The run stopped: {why}. Do not call tools. Answer my request now using only facts from the tool "
              "results above, and say plainly what is still missing.]")


@dataclass
class Degrader:
    """The `degrade` part of the guarded loop: `Degrader()(episode, messages, stop) -> Degraded`.

    With `final_answer=True`, one last request with `tool_choice="none"` asks the model to write the
    answer from what was gathered. Its price is one more request over the *whole* history, so it
    costs about what one more step would cost. How it is paid for:

    - the reserve: the loop may spend only `1 - reserve_fraction` of each limit (tokens, cost,
      seconds); the budget stops it there (`RunBudget(final_answer_share=reserve_fraction)`, or any
      budget given `loop_limits(limits)`). The slice left over pays for the final answer.
    - the check: whatever the budget did, the degrader makes the call only if its estimate fits in
      what is left of the full limits: `budget.headroom(episode)` when given the run's budget
      (lesson 2's `RunBudget`, whose `final_answer_share` is this reserve), else the scenario's
      limits minus what the ledger has used. The
      estimate is the request's input tokens (`tokens.request_tokens` over `protocol.to_wire`, the
      same count the model will charge), plus `answer_tokens` of output, priced with the
      scenario's pricing, and `answer_seconds` (or the slowest request so far, if slower) of time.
      If it does not fit, or the run stopped on a provider error, or nothing was obtained, the call
      is skipped.
    - the cheaper request: with `clip_results=N` each tool result is cut to N characters in the
      final request only (ids untouched, so it stays protocol-valid); on big contexts this is what
      makes the final answer fit at all.
    - the fallback: if the call raises, returns no text, tries to call a tool anyway, or states a
      value that no tool returned, its text is dropped and the structured answer is used.

    Either way the structured fields are the same: the prose is an extra, never the source of facts.
    """

    final_answer: bool = True
    reserve_fraction: float = 0.25
    answer_tokens: int = 400  # what the final answer may take (a real request sets it as max_tokens)
    answer_seconds: float = 10.0  # how long writing it may take: measure yours (p95 of final answers)
    clip_results: Optional[int] = None  # cut each tool result in the final request to this many characters
    budget: Optional[Budget] = None  # the run's budget (lesson 2's RunBudget), its `headroom(episode)`: what is
    #                     left of *its* limits is what the final answer may spend; else the scenario's limits

    def __post_init__(self) -> None:
        if not 0.0 <= self.reserve_fraction < 1.0:
            raise ValueError(f"reserve_fraction must be in [0, 1), got {self.reserve_fraction}")
        if self.answer_tokens < 1:
            raise ValueError(f"answer_tokens must be at least 1, got {self.answer_tokens}")
        if self.clip_results is not None and self.clip_results < 20:
            raise ValueError(f"clip_results must be at least 20 characters (or None), got {self.clip_results}")

    def loop_limits(self, limits: LimitsDef) -> LimitsDef:
        """The limits the loop itself may spend: each budget minus the reserve for the final answer.
        Steps are not scaled: the final answer is at most one extra, tool-less request."""
        keep = 1.0 - (self.reserve_fraction if self.final_answer else 0.0)
        return limits.model_copy(update={
            "max_run_tokens": None if limits.max_run_tokens is None else max(1, int(limits.max_run_tokens * keep)),
            "max_cost_usd": None if limits.max_cost_usd is None else limits.max_cost_usd * keep,
            "max_seconds": None if limits.max_seconds is None else limits.max_seconds * keep,
        })

    def __call__(self, episode: Episode, messages: list[Message], stop: Stop) -> Degraded:
        reason, detail = stop.reason, stop.detail
        if reason is StopReason.COMPLETED:
            raise ValueError("a completed run is not degraded: return the model's answer instead")
        obtained, tried = gather(episode)
        done, unfinished = checklist(episode, obtained)
        tool_items = [i.item for i in episode.scenario.checklist if i.tool and i.item in unfinished]
        advice = next_steps(reason, unfinished, tool_items, retryable=stop.retryable,
                            retry_after=stop.retry_after)
        degraded = Degraded(reason, detail, obtained, unfinished, advice, done=done, tried=tried)
        degraded.answer = degraded.render()
        if self.final_answer and stop.model_failed:  # the service said wait: do not ask it again
            degraded.final = FinalCall("skipped", "the model service failed; it is not asked again now")
        elif self.final_answer:
            self._final(episode, messages, degraded)
        return degraded

    # -- the optional last answer --------------------------------------------------------------
    def estimate(self, episode: Episode, request: Sequence[Message]) -> dict[str, float]:
        tools = episode.tools.specs
        input_tokens = request_tokens(to_wire(request, tools, episode.scenario.model.wire))
        usage = Usage(input_tokens, self.answer_tokens)
        slowest = max((s.model_seconds for s in episode.ledger.steps), default=0.0)
        return {"input_tokens": input_tokens, "output_tokens": self.answer_tokens,
                "cost_usd": episode.ledger.pricing.cost(usage), "seconds": max(slowest, self.answer_seconds)}

    def headroom(self, episode: Episode) -> dict[str, float]:
        """What is left of each limit: the budget's own view if it has one, else the scenario's limits
        minus what the ledger has spent. Steps too: the final answer is one of the run's steps, paid from
        the same limit (the loop's own, `episode.max_steps`, when it is tighter)."""
        limits, ledger = episode.limits, episode.ledger
        left = dict(self.budget.headroom(episode)) if self.budget is not None else {}
        if not left:  # no budget, or one that keeps no books of its own
            spent = {"tokens": (limits.max_run_tokens, ledger.usage.total_tokens),
                     "cost_usd": (limits.max_cost_usd, ledger.cost_usd),
                     "seconds": (limits.max_seconds, episode.clock.elapsed)}
            left = {k: limit - used for k, (limit, used) in spent.items() if limit is not None}
        step_limits = [n for n in (episode.max_steps, limits.max_steps) if n is not None]
        steps = min(step_limits) - len(ledger.steps)
        left["steps"] = min(left.get("steps", steps), steps)
        return left

    def room(self, episode: Episode, estimate: dict[str, float]) -> Optional[str]:
        """Why the call does not fit in what is left of the limits (None if it fits)."""
        left = self.headroom(episode)
        need = {"steps": 1, "tokens": estimate["input_tokens"] + estimate["output_tokens"],
                "cost_usd": estimate["cost_usd"], "seconds": estimate["seconds"]}
        fmt = {"steps": "{:.0f} step", "tokens": "{:,.0f} tokens", "cost_usd": "${:.4f}", "seconds": "{:.1f} s"}
        for name in ("steps", "tokens", "cost_usd", "seconds"):
            if name in left and need[name] > left[name]:
                have = fmt[name].format(left[name]) if left[name] > 0 else "nothing"
                return f"needs ~{fmt[name].format(need[name])}, {have} left"
        return None

    def _final(self, episode: Episode, messages: list[Message], degraded: Degraded) -> None:
        if degraded.stop_reason is StopReason.ERROR:
            degraded.final = FinalCall("skipped", "the run stopped on a provider error; do not call it again")
            return
        if degraded.stop_reason is StopReason.CANCELLED:
            degraded.final = FinalCall("skipped", "the user pressed stop: nothing more is spent")
            return
        if not degraded.obtained:
            degraded.final = FinalCall("skipped", "nothing was obtained: there is nothing to write an answer from")
            return
        note = UserMessage(FINAL_NOTE.format(why=WHY.get(degraded.stop_reason, degraded.stop_reason.value)))
        # the reserve decides whether the last answer is made, and how much of the results it quotes: the
        # whole history if it fits what is left, else results cut shorter and shorter (never the ids)
        history = briefed(messages)  # errors and interventions were for the loop; here only their gist
        for clip in [self.clip_results] if self.clip_results else [None, *AUTO_CLIPS]:
            request = [*(clipped(history, clip) if clip else history), note]
            estimate = self.estimate(episode, request)
            too_big = self.room(episode, estimate)
            if not too_big:
                break
        if too_big:
            degraded.final = FinalCall("skipped", "over budget: " + too_big, estimate)
            return
        before_usage, before_cost, before_time = episode.ledger.usage, episode.ledger.cost_usd, episode.clock.elapsed
        try:
            turn = episode.model.complete(request, episode.tools.specs, tool_choice="none")
        except Exception as exc:  # the fallback must never crash the run it is rescuing
            degraded.final = FinalCall("failed", f"the request raised {type(exc).__name__}", estimate)
            return
        used = episode.ledger.usage
        actual = {"input_tokens": used.input_tokens - before_usage.input_tokens,
                  "output_tokens": used.output_tokens - before_usage.output_tokens,
                  "cost_usd": episode.ledger.cost_usd - before_cost, "seconds": episode.clock.elapsed - before_time}
        if turn.tool_calls:
            # not appended: a tool call nobody answers would make the history invalid
            degraded.final = FinalCall("rejected", "the model tried to call a tool", estimate, actual)
            return
        messages.extend([note, turn.message])  # the trace shows the request that was paid for (results unclipped)
        text = (turn.text or "").strip()
        if not text or turn.finish_reason == "length":
            degraded.final = FinalCall("rejected", "no usable text" if not text else "the answer was cut off",
                                       estimate, actual)
            return
        invented = ungrounded(text, grounding_sources(episode, messages, degraded))
        if invented:
            degraded.final = FinalCall("rejected", "states values no tool returned: " + ", ".join(invented[:5]),
                                       estimate, actual)
            return
        degraded.final = FinalCall("used", "written from the tool results", estimate, actual)
        degraded.answer = text + "\n\n" + degraded.render(headline=False, found=False)


AUTO_CLIPS = (2000, 600, 200)  # characters per tool result, tried in turn when the whole history does not fit


def briefed(messages: Sequence[Message]) -> list[Message]:
    """The history with each error result cut to its gist (`ok`, `error_type`, the guard's `pattern`, the
    first sentence of `message`): the options and instructions told the model how to go on, and it is
    not going on. The last request is paid like any other, so it should not pay for them again."""
    out: list[Message] = []
    for m in messages:
        body = read_body(m.content) if isinstance(m, ToolMessage) and m.is_error else None
        if body is not None and len(m.content) > BRIEF_CHARS:
            gist = {k: body[k] for k in ("ok", "error_type", "pattern") if k in body}
            message = body.get("message") or body.get("evidence")
            if isinstance(message, str):
                gist["message"] = message.split(". ")[0][:BRIEF_CHARS]
            m = ToolMessage(m.call_id, to_json(gist), is_error=True)
        out.append(m)
    return out


BRIEF_CHARS = 120


def clipped(messages: Sequence[Message], limit: int) -> list[Message]:
    """The history with each long tool result cut to `limit` characters by `clip`, the executor's clipping
    too. The call ids are untouched, so the request stays protocol-valid; tools are off, so the note does
    not say how to ask for the rest."""
    return [ToolMessage(m.call_id, clip(m.content, limit, ok=not m.is_error), is_error=m.is_error)
            if isinstance(m, ToolMessage) and len(m.content) > limit else m for m in messages]
