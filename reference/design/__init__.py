"""Lesson 7: fix the design, not the fuse. The layer that decides what the model may do.

    router.py   the intent router: only the intent's tools are offered; slots (the period) settled in code
    state.py    typed runtime state: a checklist the runtime ticks, never the model; schema versions
    plan.py     plan templates and plan validation (required steps, allowed tools, dependencies)
    runtime.py  the checklist runtime: an executor that routes, settles slots, validates results and
                records them in the state; when the checklist is complete, no tool is offered
    cache.py    a cache shared by concurrent runs, the race on the simulated clock, and its fix

It sits beside parts/ (each wraps an executor from below, none imports the other);
runs/registry.py assembles the `designed` loop: this layer, with the guard of lesson 3 as the last line.
"""
