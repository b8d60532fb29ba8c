"""The kit's loop guard in the OpenAI Agents SDK, as tool guardrails on each function tool.

    input_guard, output_guard = kit_guardrails(guard)
    tool = function_tool(fn, tool_input_guardrails=[input_guard], tool_output_guardrails=[output_guard])
    Runner.run_sync(agent, task, hooks=KitGuardHooks(guard))

Before the tool runs: the input guardrail asks the guard; a call it will not run gets `reject_content`
(the SDK hands its feedback to the model as the call's output and never runs the tool); a stop raises
the SDK's ToolGuardrailTripwireTriggered, which ends the run. After the tool ran, the output guardrail
replaces a result the guard flags with its feedback (`reject_content` again). The run hooks tell the
guard which calls one model response made (`on_llm_end`), so lapses are counted per turn.
"""
from __future__ import annotations

from typing import Any

from agents import RunHooks, ToolGuardrailFunctionOutput, tool_input_guardrail, tool_output_guardrail

from ..kitguard import KitGuard


def kit_guardrails(guard: KitGuard) -> tuple[Any, Any]:
    @tool_input_guardrail
    def kit_loop_guard(data: Any) -> ToolGuardrailFunctionOutput:
        c = data.context
        said = guard.before(c.tool_call_id, c.tool_name, c.tool_arguments)
        if said.action == "stop":
            return ToolGuardrailFunctionOutput.raise_exception(output_info=said.detail)
        if said.action == "intervene":
            return ToolGuardrailFunctionOutput.reject_content(said.text or "", output_info=said.pattern)
        return ToolGuardrailFunctionOutput.allow()

    @tool_output_guardrail
    def kit_loop_guard_result(data: Any) -> ToolGuardrailFunctionOutput:
        c = data.context
        after = guard.after(c.tool_call_id, c.tool_name, str(data.output))
        if after.action == "intervene":
            return ToolGuardrailFunctionOutput.reject_content(after.text or "", output_info=after.pattern)
        return ToolGuardrailFunctionOutput.allow()

    return kit_loop_guard, kit_loop_guard_result


class KitGuardHooks(RunHooks):
    """Tells the guard the calls of each model response: the calls of one response are one turn."""

    def __init__(self, guard: KitGuard):
        self.guard = guard

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        calls = [(o.call_id, o.name, o.arguments) for o in response.output if getattr(o, "type", "") == "function_call"]
        if calls:
            self.guard.model_turn(calls)
