"""ReAct loop: think, act, observe, until the model says it is done.

Expert score: 15. Why: (1) skeleton: the model's own "done" is the only way out, no step cap, so any looping scenario runs until something external kills it (red flag while True, -10; the card gives the skeleton nothing when the grader has to cut the loop off); (2) history correct: assistant turn then one tool message per id; (3) only one kind of exit; (4) no budgets at all; (5) no loop detection; (6) exceptions are caught and only the class name is returned, which keeps secrets out but retries nothing and tells the model nothing actionable; (7) a run that never ends gives the user nothing (red flag, -10); (8) no trace; (9) native tool calls at least.
"""
import json


def agent(llm, run_tool, user_message, tools):
    history = [{"role": "system", "content": "You are a helpful support agent. Use the tools, then answer."},
               {"role": "user", "content": user_message}]
    while True:
        msg = llm(history, tools)
        history.append(msg)
        if msg.get("tool_calls") is None or len(msg["tool_calls"]) == 0:
            break  # model is done
        for tc in msg["tool_calls"]:
            fn = tc["function"]
            try:
                observation = run_tool(fn["name"], json.loads(fn["arguments"]))
            except Exception as e:
                observation = f"failed: {type(e).__name__}"
            history.append({"role": "tool", "tool_call_id": tc["id"], "content": observation})
    return msg["content"]
