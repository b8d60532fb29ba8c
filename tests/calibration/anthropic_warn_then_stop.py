"""A loop on the anthropic SDK: a step cap, an exact-repeat fingerprint that answers the second identical
call with a warning instead of running it and stops at the third, errors kept inside, and at every stop a
summary of what the tools returned.

Expert score: 75. Why: skeleton and pairing right (60); a resource and a guard exit (6); no budget (0);
exact repeats caught with one intervention, disguised ones missed (4); errors inside, nothing retried (3);
a summary with the facts found at every stop (6): 79, less for no budget at all in a production answer.
"""
import json

import anthropic  # noqa: F401


def agent(client, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    seen, found = {}, []

    def stop(reason):
        facts = "; ".join(found[-3:]) or "nothing yet"
        return {"answer": f"Stopped ({reason}) before finishing. Found so far: {facts}. Not done: the rest of "
                          f"\"{user_message}\". Try a narrower request.", "stop_reason": reason}

    for _ in range(8):
        response = client.messages.create(model="claude-haiku-4-5", max_tokens=1024, messages=messages,
                                          tools=tools)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in response.content]})
        calls = [b for b in response.content if b.type == "tool_use"]
        if not calls:
            return "".join(b.text for b in response.content if b.type == "text")
        results = []
        for call in calls:
            key = call.name + json.dumps(call.input, sort_keys=True)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] >= 3:
                return stop("repeated_call")
            if seen[key] == 2:
                content = f"Not run: {call.name} was already called with these exact inputs. Use that result."
            else:
                try:
                    content = run_tool(call.name, call.input)
                    found.append(content[:200])
                except Exception as exc:
                    content = json.dumps({"ok": False, "error": type(exc).__name__})
            results.append({"type": "tool_result", "tool_use_id": call.id, "content": content})
        messages.append({"role": "user", "content": results})
    return stop("max_steps")
