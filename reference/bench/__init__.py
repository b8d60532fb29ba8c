"""`loopkit bench`: other frameworks' default agent loops against the scripted model (docs/bench.md)."""
