"""Lesson 5: tool errors, and the resilient executor that meets them.

The package, by job, each module importing only those above it:

    taxonomy.py   every failure's `error_type`: retryable or not, the tool's fault or not (KINDS);
                  classifying exceptions, HTTP statuses and HTTP 200 business failures
    redaction.py  what a tool's own text may show the model (`safe_text` fails closed)
    translate.py  a failure as an error body the model can act on: argument help, examples, what next
    schema.py     checking arguments against the tool's JSON Schema (`jsonschema`, imported on first use)
    retries.py    when to wait and try again, given what is left of the budget (tools and model requests)
    executor.py   ResilientExecutor, the `executor` part: retries in code, circuit breakers

    parts = Parts(executor=ResilientExecutor.for_episode(episode))
"""
from .executor import ResilientExecutor, ToolAttempt
from .retries import RetryPolicy

__all__ = ["ResilientExecutor", "RetryPolicy", "ToolAttempt"]
