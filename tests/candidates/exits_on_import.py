"""Hostile: the file ends the process as soon as it is imported.

Expert score: 0. Why: hostile: nothing runs.
"""
import sys

sys.exit(3)


def loop(episode, max_steps=8):
    raise AssertionError("never reached")
