"""A loop on the openai SDK (Chat Completions): a step cap, a token budget checked before each request
from the usage the API reports (the next request is at least as big as the last one), and a summary of
what was found at every stop. No repeat detection.

Expert score: 72. Why: skeleton and pairing right (60); a resource exit only (3); a token budget checked
before each request from real usage (6), no cost budget; no guard (0); errors inside, nothing retried (3);
a summary with the facts found at every stop (6): 78, less for letting every repeat run to the cap.
"""
import json

import openai  # noqa: F401

TOKEN_BUDGET = 20_000


def agent(client, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    spent, last_prompt, found = 0, 0, []

    def stop(reason):
        facts = "; ".join(found[-3:]) or "nothing yet"
        return {"answer": f"I stopped ({reason}). What I found: {facts}. Unfinished: \"{user_message}\"; "
                          "ask again with a narrower question.", "stop_reason": reason}

    for _ in range(8):
        if spent + last_prompt > TOKEN_BUDGET:  # the next request costs at least the last prompt again
            return stop("token_budget")
        response = client.chat.completions.create(model="gpt-5.4-mini", messages=messages, tools=tools)
        spent += response.usage.total_tokens
        last_prompt = response.usage.prompt_tokens
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            try:
                result = run_tool(call.function.name, json.loads(call.function.arguments))
                found.append(result[:200])
            except Exception as exc:
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return stop("max_steps")
