"""Red flag: only the expected exception is caught; anything else (a bug, bad JSON) escapes the loop.

"One timeout and the whole agent is dead" is the mild version: here a timeout is handled, and the
first RuntimeError, KeyError or JSONDecodeError ends the run with a traceback instead of an answer.
"""
import json

from reference.loops import hooks
from reference import ToolMessage, ToolTimeout


class Executor(hooks.Executor):
    def offered(self, episode):
        return episode.tools.specs

    def execute(self, episode, call):
        args = json.loads(call.arguments)
        for attempt in range(3):
            try:
                outcome = episode.tools.invoke(call.name, args, call.id)
            except ToolTimeout:
                episode.clock.sleep(0.5 * 2 ** attempt)
                continue
            return ToolMessage(call.id, outcome.to_content(), is_error=not outcome.ok)
        return ToolMessage(call.id, json.dumps({"ok": False, "error_type": "timeout", "retryable": False}),
                           is_error=True)

    def after_step(self, episode):
        return None


def make_executor(episode):
    return Executor()
