"""The kit's loop guard in the OpenAI Agents SDK, as tool guardrails on each function tool.

    tool = function_tool(fn, **kit_tool_options(guard))
    Runner.run_sync(agent, task, hooks=KitGuardHooks(guard))

Before the tool runs: the input guardrail asks the guard; a call it will not run gets `reject_content`
(the SDK hands its feedback to the model as the call's output and never runs the tool); a stop raises
the SDK's ToolGuardrailTripwireTriggered, which ends the run. After the tool ran, the output guardrail
replaces a result the guard flags with its feedback (`reject_content` again). The SDK turns a tool's
exception into its fixed error text before the output guardrail sees it, so the options also set the
tool's `failure_error_function`: the SDK's own default text for the model, the exception kept for the
guard. The run hooks tell the guard which calls one model response made (`on_llm_end`), so lapses are
counted per turn, and end the run before the next model request once the guard has stopped it after a
result (`on_llm_start`).
"""
from __future__ import annotations

from typing import Any

from agents import RunHooks, ToolGuardrailFunctionOutput, tool_input_guardrail, tool_output_guardrail
from agents.tool import default_tool_error_function

from ..kitguard import KitGuard


def kit_tool_options(guard: KitGuard) -> dict[str, Any]:
    """`function_tool` keyword arguments: the guard before and after the tool, and the tool's exceptions kept."""
    failures: dict[str, Exception] = {}  # by call id, from the tool's failure to its output guardrail

    def keep_failure(ctx: Any, error: Exception) -> str:
        failures[getattr(ctx, "tool_call_id", "")] = error
        return default_tool_error_function(ctx, error)

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
        after = guard.after(c.tool_call_id, c.tool_name, str(data.output), raised=failures.pop(c.tool_call_id, None))
        if after.action == "intervene":
            return ToolGuardrailFunctionOutput.reject_content(after.text or "", output_info=after.pattern)
        return ToolGuardrailFunctionOutput.allow()

    return {"tool_input_guardrails": [kit_loop_guard], "tool_output_guardrails": [kit_loop_guard_result],
            "failure_error_function": keep_failure}


class KitGuardHooks(RunHooks):
    """Tells the guard the calls of each model response (one turn), and ends the run before the next model
    request once the guard has stopped it."""

    def __init__(self, guard: KitGuard):
        self.guard = guard

    async def on_llm_start(self, context: Any, agent: Any, system_prompt: Any, input_items: Any) -> None:
        if self.guard.stopping is not None:
            self.guard.stopping.raise_if_stop()

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        calls = [(o.call_id, o.name, o.arguments) for o in response.output if getattr(o, "type", "") == "function_call"]
        if calls:
            self.guard.model_turn(calls)
