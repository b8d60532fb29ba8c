"""Hostile: the loop never returns and never calls the model."""


def loop(episode, max_steps=8):
    while True:
        pass
