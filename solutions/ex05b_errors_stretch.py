"""Exercise 5 (stretch), solved: malformed calls, circuit breakers, the same rejected call.

See exercises/ex05b_errors_stretch.py for the task. Why each part is there:
- a malformed call (unknown tool, arguments that are not JSON or break the schema) never reaches a
  tool, and the model is told which argument, what was expected and an example;
- a tool that keeps failing is withdrawn; with no tool left the run stops instead of spinning;
- a model that sends the same rejected call again and again is stopped like any other loop.
"""
from __future__ import annotations

from typing import Any, Optional

from reference import Episode, StopReason, ToolCall, ToolMessage, ToolSpec
from reference.loops.hooks import Stop
from reference.core.lazy import load_jsonschema
from reference.parts.executor.given_core import Failure, RetryingExecutor, translate  # the core's answers


class ToolErrorExecutor(RetryingExecutor):
    """Steps 1-3: the core's executor, with malformed calls, circuit breakers and repeated rejections."""

    def __init__(self, episode: Episode, max_attempts: int = 3, failure_threshold: int = 2,
                 max_same_rejections: int = 3):
        super().__init__(episode, max_attempts)  # max_attempts, max_seconds, rng, alternatives
        self.failure_threshold = failure_threshold
        self.max_same_rejections = max_same_rejections
        self.failures: dict[str, int] = {}  # tool -> failed calls in a row
        self.withdrawn: set[str] = set()
        self.rejections: dict[str, int] = {}  # the same rejected call -> how many times
        self.stop: Optional[Stop] = None

    def offered(self, episode: Episode) -> list[ToolSpec]:
        return [s for s in episode.tools.specs if s.name not in self.withdrawn]

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        try:
            return self._execute(episode, call)
        except Exception:  # never raise into the loop, whatever happened
            return translate(call, Failure("internal_error", False))

    def after_step(self, episode: Episode) -> Optional[Stop]:
        if self.stop:
            return self.stop
        if self.withdrawn and not self.offered(episode):
            return Stop(StopReason.CIRCUIT_OPEN, f"every tool was withdrawn: {', '.join(sorted(self.withdrawn))}")
        return None

    # Step 1: malformed calls never reach a tool.
    def check(self, episode: Episode, call: ToolCall) -> Optional[ToolMessage]:
        names = [s.name for s in self.offered(episode)]
        if call.name not in episode.tools.names or call.name in self.withdrawn:
            why = "was withdrawn after repeated failures" if call.name in self.withdrawn else "does not exist"
            return translate(call, Failure("unknown_tool" if call.name not in self.withdrawn else "circuit_open",
                                           False), message=f"'{call.name}' {why}.", available_tools=names)
        spec = next(s for s in episode.tools.specs if s.name == call.name)
        try:
            args = call.parsed_arguments()
        except ValueError:
            return translate(call, Failure("invalid_json", False), message=f"The arguments for '{call.name}' are "
                             "not a valid JSON object.", expected=_signature(spec.parameters))
        jsonschema = load_jsonschema()  # on first use, without its slow optional IRI grammar

        validator_class = jsonschema.validators.validator_for(spec.parameters)
        validator = validator_class(spec.parameters, format_checker=validator_class.FORMAT_CHECKER)
        error = jsonschema.exceptions.best_match(validator.iter_errors(args))
        if error is None:
            return None
        argument = error.path[0] if error.path else None
        prop = spec.parameters.get("properties", {}).get(argument, {}) if argument else {}
        return translate(call, Failure("invalid_argument", False), message=f"'{call.name}' was not run: "
                         f"{error.message}.", argument=argument, expected=prop.get("description") or
                         _signature(spec.parameters), example=_example(prop, episode))

    def _execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        rejected = self.check(episode, call)
        if rejected is not None:
            self._count_rejection(call)
            return rejected
        outcome, failure, attempts = self.run_with_retries(episode, call, call.parsed_arguments())
        if failure is None:
            self.failures[call.name] = 0
            return ToolMessage(call.id, outcome.to_content())
        alternatives = [a for a in self.alternatives.get(call.name, []) if a not in self.withdrawn]
        if failure.retryable or failure.error_type == "internal_error":  # Step 2: the tool is sick
            self.failures[call.name] = self.failures.get(call.name, 0) + 1
            if self.failures[call.name] >= self.failure_threshold:
                self.withdrawn.add(call.name)
                return translate(call, failure, attempts, alternatives, circuit_open=True,
                                 withdrawn=f"'{call.name}' failed {self.failures[call.name]} calls in a row and is "
                                           "withdrawn for the rest of this run. Do not call it again.")
        else:  # the tool answered: the call was wrong
            self.failures[call.name] = 0
            self._count_rejection(call)
        return translate(call, failure, attempts, alternatives)

    # Step 3: the same rejected call again and again is a loop.
    def _count_rejection(self, call: ToolCall) -> None:
        key = call.name + " " + " ".join(call.arguments.split())
        self.rejections[key] = self.rejections.get(key, 0) + 1
        if self.rejections[key] >= self.max_same_rejections:
            self.stop = Stop(StopReason.REPEATED_CALL,
                             f"the same rejected call to '{call.name}' came {self.rejections[key]} times")


def _signature(schema: dict[str, Any]) -> dict[str, str]:
    return {name: prop.get("description", prop.get("type", "")) for name, prop in schema.get("properties", {}).items()}


def _example(prop: dict[str, Any], episode: Episode) -> Any:
    if prop.get("examples"):
        return prop["examples"][0]
    if prop.get("format") == "date" or "YYYY-MM-DD" in prop.get("description", ""):
        return episode.clock.today().isoformat()
    return None


def make_executor(episode: Episode) -> ToolErrorExecutor:
    return ToolErrorExecutor(episode)
