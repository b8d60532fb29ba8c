"""One run's wiring: the episode (model, tools, clock, meters, ready for a loop) and the ledger that
meters every model request and tool attempt."""
