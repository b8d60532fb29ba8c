"""Red flag: every error becomes "Something went wrong, please try again."

It never leaks and never raises, and that is all it does: the model learns neither which argument
was wrong nor what to send instead, and "try again" invites exactly the repeat that loops.
"""
import json

from reference.loops import hooks
from reference import ToolMessage

VAGUE = json.dumps({"ok": False, "message": "Something went wrong. Please try again."})


class Executor(hooks.Executor):
    def offered(self, episode):
        return episode.tools.specs

    def execute(self, episode, call):
        try:
            outcome = episode.tools.invoke(call.name, json.loads(call.arguments), call.id)
        except Exception:
            return ToolMessage(call.id, VAGUE, is_error=True)
        if not outcome.ok:
            return ToolMessage(call.id, VAGUE, is_error=True)
        return ToolMessage(call.id, outcome.to_content())

    def after_step(self, episode):
        return None


def make_executor(episode):
    return Executor()
