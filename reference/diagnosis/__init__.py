"""Lesson 6: trace-based diagnosis, a layer beside `runs`, above `parts`. It reads the traces the harness
writes (reference/harness/trace.py): `shapes` (what shape did the run take, and its fix), `timeline` (a
run step by step), `fleet` (metrics and alerts over many runs), `replay` (a trace becomes a regression
scenario), `otel` (OpenTelemetry GenAI spans and the token-usage metric; needs the `trace` extra).
Real agent logs (docs/diagnose.md): `logs` reads them, `shadow` lets the guarded loop's guard judge them
(through `guard_adapter` only), `fleetlog` sums the verdicts, `batch` spreads files over processes,
`replay_log` turns a conversation into a scenario, `samples` writes the lesson's sample logs.
It sits above parts (the guard), and nothing below imports it."""
