"""The kit's core types: messages, the Model protocol and its Turn, the run result and stop reasons,
the kit's own exceptions, and the structured tool result. Everything else in `reference/` builds on
these; nothing here imports anything above it."""
