"""The full guarded loop (lessons 2-5): budgets, fingerprint guards, degraded outputs, resilient tools."""
from reference.runs.registry import guarded


def loop(episode, max_steps=8):
    return guarded(episode, max_steps)
