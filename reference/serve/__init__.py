"""`loopkit serve`: a scenario's scripted model over real HTTP, for outside clients (docs/serve.md)."""
