"""Red flag: every failure is retried, invalid arguments and refusals included.

A 400 (or a 403, a 404, a business rule, a bug) fails the same way every time: the retries burn
time and quota, and on a tool that writes they can do harm. Only what can heal is retried.
"""
import json

from reference.loops import hooks
from reference import ToolMessage


class Executor(hooks.Executor):
    def offered(self, episode):
        return episode.tools.specs

    def execute(self, episode, call):
        for attempt in range(1, 4):
            try:
                outcome = episode.tools.invoke(call.name, json.loads(call.arguments), call.id)
                failed = not outcome.ok or (isinstance(outcome.data, dict) and outcome.data.get("success") is False)
            except Exception:
                outcome, failed = None, True
            if not failed:
                return ToolMessage(call.id, outcome.to_content())
            if attempt < 3:
                episode.clock.sleep(0.5 * 2 ** attempt)
        return ToolMessage(call.id, json.dumps({"ok": False, "error_type": "tool_error", "retryable": False,
                                                "message": f"'{call.name}' failed after 3 attempts."}), is_error=True)

    def after_step(self, episode):
        return None


def make_executor(episode):
    return Executor()
