"""Agent with "robust" tool calls: every failure retried, and the model gets the full traceback to debug.

Expert score: 50. Why: (1) skeleton right: one llm() call per step, tools run in code, a reply with no calls is the answer; (2) history right: assistant turn appended, one tool message per id; (3) exits: completed and max_steps only, no abnormal exit; (4) step cap only, no budgets; (5) no loop detection at all; (6) every exception is retried three times whatever it is, bad arguments and permission errors included (red flag, -10), and when it gives up the raw traceback, with whatever paths or secrets it holds, is pasted into the conversation (red flag, -10); a timeout is at least retried in code; (7) at the cap returns the last tool outputs and the stop reason (something found, but no unfinished part or next step); (8) no trace beyond the traceback itself; (9) native tool calls.
"""
import json
import time
import traceback


def run_with_retries(run_tool, name, args, tries=3):
    for n in range(tries):
        try:
            return run_tool(name, args)
        except Exception:
            if n == tries - 1:
                # give the model everything so it can figure out what went wrong
                return "Tool raised an exception:\n" + traceback.format_exc()
            time.sleep(0.05 * (n + 1))


def agent(llm, run_tool, user_message, tools):
    conversation = [{"role": "user", "content": user_message}]
    last_outputs = []
    for step in range(10):
        response = llm(conversation, tools)
        conversation.append(response)
        tool_calls = response.get("tool_calls") or []
        if not tool_calls:
            return response.get("content") or ""
        for tc in tool_calls:
            output = run_with_retries(run_tool, tc["function"]["name"], json.loads(tc["function"]["arguments"]))
            last_outputs.append(output)
            conversation.append({"role": "tool", "tool_call_id": tc["id"], "content": output})
    return {"answer": "Here is what I gathered before stopping: " + " / ".join(o[:200] for o in last_outputs[-3:]),
            "stop_reason": "max_steps"}
