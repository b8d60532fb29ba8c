"""Red flag: the exception goes back to the model as it is ("the model can read the error and fix it").

A stack trace costs tokens, gives the model nothing it can act on, and hands it (and the provider's
logs, and maybe the user) file paths, SQL, host names and whatever secret the exception holds.
"""
import json
import traceback

from reference.loops import hooks
from reference import ToolMessage


class Executor(hooks.Executor):
    def offered(self, episode):
        return episode.tools.specs

    def execute(self, episode, call):
        try:
            outcome = episode.tools.invoke(call.name, json.loads(call.arguments), call.id)
        except Exception:
            return ToolMessage(call.id, json.dumps({"ok": False, "error": traceback.format_exc()}), is_error=True)
        return ToolMessage(call.id, outcome.to_content(), is_error=not outcome.ok)

    def after_step(self, episode):
        return None


def make_executor(episode):
    return Executor()
