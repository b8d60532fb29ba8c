"""The kit's loop guard in Pydantic AI, as a capability that wraps each tool execution.

    agent = Agent(model, tools=tools, capabilities=[KitGuardCapability(KitGuard(tool_specs, user=...))])

Before the tool runs: `wrap_tool_execute` asks the guard first; a call it will not run returns the
guard's feedback as the tool's return value without calling the handler (so the tool never runs). After
the tool ran, a result the guard flags is replaced by its feedback. A stop raises LoopStopped
(reference/bench/kitguard.py), which ends `agent.run`: from the next tool call, or, for a stop decided
after a result, from `before_model_request`, before the next model request is sent. The calls of one model response are one turn,
read from the run's messages (`ctx.messages`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability

from ..kitguard import KitGuard


@dataclass
class KitGuardCapability(AbstractCapability):
    guard: KitGuard

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        if self.guard.stopping is not None:
            self.guard.stopping.raise_if_stop()
        return request_context

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        response = next((m for m in reversed(ctx.messages) if getattr(m, "kind", "") == "response"), None)
        if response is not None:  # the whole model response: its calls are one turn
            calls = [(p.tool_call_id, p.tool_name, p.args_as_json_str()) for p in response.parts
                     if getattr(p, "part_kind", "") == "tool-call"]
            if call.tool_call_id in {c[0] for c in calls}:
                self.guard.model_turn(calls)
        said = self.guard.before(call.tool_call_id, call.tool_name, call.args_as_json_str()).raise_if_stop()
        if said.action == "intervene":
            return said.text
        try:
            result = await handler(args)
        except Exception as exc:
            self.guard.after(call.tool_call_id, call.tool_name, "", raised=exc)
            raise
        text = result if isinstance(result, str) else str(result)
        after = self.guard.after(call.tool_call_id, call.tool_name, text)
        return after.text if after.action == "intervene" else result
