"""Running somebody else's loop safely: the channel to its process and both ends of the episode across it,
the fresh interpreter and its zygote, the limits, the claims checked against the books, the in-process
runs of a `loopkit check` session and what they put back, and the processes a run left behind."""
