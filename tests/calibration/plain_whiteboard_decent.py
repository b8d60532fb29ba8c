"""A decent whiteboard answer on two plain functions: a step cap, a token estimate checked before each
request, an exact-repeat fingerprint that warns once and then stops, and a summary of what was found on
every stop.

Expert score: 80. Why: skeleton and pairing right (60); a resource and a guard exit (6); a token budget
checked before each request but estimated and with no cost budget (4); exact repeats caught with one
intervention, disguised ones missed (4); errors kept inside but nothing retried (3); a summary with the
facts found at every stop (6): 83, rounded down for the crude estimate.
"""
import json

MAX_STEPS = 8
TOKEN_BUDGET = 12_000


def estimate(messages):
    return len(json.dumps(messages)) // 4


def summary(reason, found, question):
    got = "; ".join(found[-3:]) if found else "nothing usable yet"
    return (f"I had to stop ({reason}) before finishing \"{question}\". What I found: {got}. "
            "Still open: the rest of your request. Next: narrow the question, or ask a colleague to check.")


def agent(llm, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    seen, found = {}, []
    for _ in range(MAX_STEPS):
        if estimate(messages) > TOKEN_BUDGET:
            return {"answer": summary("token budget", found, user_message), "stop_reason": "token_budget"}
        reply = llm(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            name, raw = call["function"]["name"], call["function"]["arguments"]
            try:
                args = json.loads(raw)
            except ValueError:
                args = raw
            key = name + json.dumps(args, sort_keys=True)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 3:
                return {"answer": summary("the same call kept coming back", found, user_message),
                        "stop_reason": "repeated_call"}
            if seen[key] == 2:
                result = f"You already called {name} with these arguments and have its result. Use it, or answer."
            else:
                try:
                    result = run_tool(name, args)
                    found.append(result[:200])
                except Exception as exc:
                    result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return {"answer": summary("step limit", found, user_message), "stop_reason": "max_steps"}
