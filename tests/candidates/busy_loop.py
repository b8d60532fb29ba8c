"""Hostile: the loop never returns and never calls the model.

Expert score: 0. Why: hostile: never calls the model, never returns.
"""


def loop(episode, max_steps=8):
    while True:
        pass
