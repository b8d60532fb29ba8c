"""Red flag: HTTP 200 means success. The body says `success: false`, and the model reads it as data.

The executor checks only the transport (`outcome.ok`, the status code). A refused refund arrives as
`{"ok": true, "data": {"success": false, ...}}`; the model believes the refund went through and
keeps checking its status.
"""
import json

from reference.loops import hooks
from reference import ToolMessage


class Executor(hooks.Executor):
    def offered(self, episode):
        return episode.tools.specs

    def execute(self, episode, call):
        try:
            outcome = episode.tools.invoke(call.name, json.loads(call.arguments), call.id)
        except Exception:
            return ToolMessage(call.id, json.dumps({"ok": False, "error_type": "internal_error", "retryable": False,
                                                    "message": f"'{call.name}' failed."}), is_error=True)
        return ToolMessage(call.id, outcome.to_content(), is_error=not outcome.ok)

    def after_step(self, episode):
        return None


def make_executor(episode):
    return Executor()
