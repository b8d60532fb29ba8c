"""The kit's loop guard in LangChain's `create_agent` (LangGraph underneath), as agent middleware.

    agent = create_agent(model, tools, middleware=[KitGuardMiddleware(KitGuard(tool_specs, user=...))])

Before the tool runs: `wrap_tool_call` asks the guard first; a call it will not run is answered with its
feedback as the call's ToolMessage (status "error"), and the tool never runs. After the tool ran, a result
the guard replaces (the same answer again, no progress) goes to the model as the guard's feedback. When
the guard stops the run, `before_model` jumps to the graph's end before the next model request
(middleware's own `jump_to`) with a last AIMessage that says why, so the state ends on the agent's word,
not on a tool's result; `guard.stopping` says the same.
"""
from __future__ import annotations

from typing import Any, Callable

from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import AIMessage, ToolMessage

from ..kitguard import KitGuard


class KitGuardMiddleware(AgentMiddleware):
    def __init__(self, guard: KitGuard):
        super().__init__()
        self.guard = guard

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        stop = self.guard.stopping
        if stop is None:
            return None
        return {"jump_to": "end", "messages": [AIMessage(content=f"Stopped by the loop guard ({stop.pattern}): {stop.detail}")]}

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        call = request.tool_call
        asked = next((m for m in reversed(request.state.get("messages", [])) if isinstance(m, AIMessage)), None)
        if asked is not None and asked.tool_calls:  # the whole model message: its calls are one turn
            self.guard.model_turn([(c["id"], c["name"], c["args"]) for c in asked.tool_calls])
        said = self.guard.before(call["id"], call["name"], call["args"])
        if said.action != "run":
            return ToolMessage(content=said.text or "", tool_call_id=call["id"], name=call["name"], status="error")
        try:
            result = handler(request)
        except Exception as exc:  # the tool raised and LangChain lets it end the run: the guard hears it first
            self.guard.after(call["id"], call["name"], "", raised=exc)
            raise
        if not isinstance(result, ToolMessage):  # a Command: the tool steers the graph itself
            return result
        after = self.guard.after(call["id"], call["name"], result.text, failed=result.status == "error")
        if after.action == "intervene":
            return ToolMessage(content=after.text or "", tool_call_id=call["id"], name=call["name"], status="error")
        return result
