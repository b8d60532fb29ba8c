"""Lesson 6: trace-based diagnosis, a layer beside `runs`, above `parts`. It reads the traces the harness
writes (reference/harness/trace.py): `shapes` (what shape did the run take, and its fix), `timeline` (a
run step by step), `fleet` (metrics and alerts over many runs), `replay` (a trace becomes a regression
scenario), `otel` (OpenTelemetry GenAI spans and the token-usage metric; needs the `trace` extra).
It imports sim, harness, core and wire only, and nothing below imports it."""
