"""Red flag: a retry decorator around a function that catches its own exceptions and returns them.

The classic from public reference code: `@retry` retries when the function raises, but the function
never raises (it turns every exception into an error result "so the agent never crashes"), so the
retry can never fire. Both halves look right on their own; together, a timeout is never retried.
"""
import json

from reference.loops import hooks
from reference import ToolMessage


def retry(times=3, wait=0.5):
    def decorate(fn):
        def wrapper(self, episode, call):
            for attempt in range(times):
                try:
                    return fn(self, episode, call)
                except Exception:
                    if attempt == times - 1:
                        raise
                    episode.clock.sleep(wait * 2 ** attempt)
        return wrapper
    return decorate


class Executor(hooks.Executor):
    def offered(self, episode):
        return episode.tools.specs

    @retry(times=3)
    def execute(self, episode, call):
        try:
            outcome = episode.tools.invoke(call.name, json.loads(call.arguments), call.id)
        except Exception:  # "never let a tool crash the agent"
            return ToolMessage(call.id, json.dumps({"ok": False, "error_type": "tool_error", "retryable": False,
                                                    "message": f"'{call.name}' failed."}), is_error=True)
        return ToolMessage(call.id, outcome.to_content(), is_error=not outcome.ok)

    def after_step(self, episode):
        return None


def make_executor(episode):
    return Executor()
